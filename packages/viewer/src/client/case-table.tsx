import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { RunResponse } from '../shared/api-types.js';
import { duration, score } from './format.js';
import { href } from './router.js';

export const ROW_HEIGHT = 36;
const OVERSCAN = 10;

export type SortColumn =
  | 'id'
  | 'verdict'
  | 'score'
  | 'target'
  | 'evalFile'
  | 'durationMs'
  | 'costUsd';

export interface CaseFilter {
  verdict: string;
  target: string;
  grader: string;
  tag: string;
  failureClass: string;
  evalFile: string;
  text: string;
}

export const NO_FILTER: CaseFilter = {
  verdict: 'all',
  target: '',
  grader: '',
  tag: '',
  failureClass: '',
  evalFile: '',
  text: '',
};

const VERDICT_ORDER = { errored: 0, failed: 1, passed: 2 } as const;

/** How the table is sorted; `column` null keeps the file's order. */
export interface CaseSort {
  column: SortColumn | null;
  descending: boolean;
}

const ranks = new WeakMap<RunResponse, Map<SortColumn, Int32Array>>();
const searchTexts = new WeakMap<RunResponse, string[]>();
const answers = new WeakMap<RunResponse, string[]>();

/** Hands the table the start of each case's answer, once fetched (`/api/run-text`). */
export function setAnswers(run: RunResponse, text: string[]): void {
  answers.set(run, text);
  searchTexts.delete(run);
}

/** False until `setAnswers` was called for the run: search then looks at ids and targets only. */
export function hasAnswers(run: RunResponse): boolean {
  return answers.has(run);
}

/**
 * Each case's position when the run is sorted by `column` (ties in file order), computed once
 * per run and column: sorting a filtered subset is then a pass over the cases, not a sort.
 */
export function rankOf(run: RunResponse, column: SortColumn): Int32Array {
  let byColumn = ranks.get(run);
  if (byColumn === undefined) {
    byColumn = new Map();
    ranks.set(run, byColumn);
  }
  let rank = byColumn.get(column);
  if (rank !== undefined) return rank;
  const count = run.cases.id.length;
  const order = new Int32Array(count);
  for (let index = 0; index < count; index++) order[index] = index;
  const key = sortKey(run, column);
  if (key instanceof Float64Array) {
    order.sort((a, b) => key[a]! - key[b]! || a - b);
  } else {
    order.sort((a, b) => {
      const left = key[a]!;
      const right = key[b]!;
      return left < right ? -1 : left > right ? 1 : a - b;
    });
  }
  rank = new Int32Array(count);
  for (let position = 0; position < count; position++) rank[order[position]!] = position;
  byColumn.set(column, rank);
  return rank;
}

/** The lower-cased text free-text search looks in: id, target and the start of the answer. */
export function searchTextOf(run: RunResponse): string[] {
  let text = searchTexts.get(run);
  if (text === undefined) {
    const answer = answers.get(run);
    text = run.cases.id.map((id, index) =>
      `${id}\n${run.targetNames[run.cases.target[index]!]}\n${answer?.[index] ?? ''}`.toLowerCase(),
    );
    searchTexts.set(run, text);
  }
  return text;
}

/** Computes the sort ranks and search text in the background, a piece at a time, after a paint. */
export function prepareInBackground(run: RunResponse): () => void {
  const steps: (() => unknown)[] = [
    () => searchTextOf(run),
    ...SORT_COLUMNS.map((column) => () => rankOf(run, column)),
  ];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const next = () => {
    const step = steps.shift();
    if (step === undefined) return;
    step();
    timer = setTimeout(next, 30);
  };
  timer = setTimeout(next, 200);
  return () => clearTimeout(timer);
}

/**
 * The indexes of the cases `filter` keeps, in `sort` order. Works on the run's columns
 * without building an object per case.
 */
export function selectCases(run: RunResponse, filter: CaseFilter, sort: CaseSort): Int32Array {
  const cases = run.cases;
  const count = cases.id.length;
  const target = filter.target === '' ? -1 : run.targetNames.indexOf(filter.target);
  const evalFile = filter.evalFile === '' ? -1 : run.evalFileNames.indexOf(filter.evalFile);
  const grader = filter.grader === '' ? -1 : run.graderNames.indexOf(filter.grader);
  const tag = filter.tag === '' ? -1 : run.tagNames.indexOf(filter.tag);
  const failureClass =
    filter.failureClass === '' ? -1 : run.failureClassNames.indexOf(filter.failureClass);
  const text = filter.text.trim().toLowerCase();
  const searchText = text === '' ? [] : searchTextOf(run);
  const kept = new Int32Array(count);
  let size = 0;
  for (let index = 0; index < count; index++) {
    if (filter.verdict !== 'all' && cases.verdict[index] !== filter.verdict) continue;
    if (filter.target !== '' && cases.target[index] !== target) continue;
    if (filter.evalFile !== '' && cases.evalFile[index] !== evalFile) continue;
    if (filter.grader !== '' && !cases.graders[index]!.includes(grader)) continue;
    if (filter.tag !== '' && !cases.tags[index]!.includes(tag)) continue;
    if (filter.failureClass !== '' && cases.failureClass[index] !== failureClass) continue;
    if (text !== '' && !searchText[index]!.includes(text)) continue;
    kept[size++] = index;
  }
  let order = kept.subarray(0, size);
  if (sort.column !== null) {
    const rank = rankOf(run, sort.column);
    if (size * 8 < count) {
      order.sort((a, b) => rank[a]! - rank[b]!);
    } else {
      // Place each kept case at its rank, then read the places in order: linear in the run.
      const places = new Int32Array(count).fill(-1);
      for (let at = 0; at < size; at++) places[rank[order[at]!]!] = order[at]!;
      order = new Int32Array(size);
      let next = 0;
      for (let place = 0; place < count; place++)
        if (places[place]! >= 0) order[next++] = places[place]!;
    }
  }
  if (sort.descending) order.reverse();
  return order;
}

function sortKey(run: RunResponse, column: SortColumn): Float64Array | string[] {
  const cases = run.cases;
  const numbers = (values: ArrayLike<number>) => Float64Array.from(values);
  switch (column) {
    case 'id':
      return cases.id;
    case 'verdict':
      return numbers(cases.verdict.map((verdict) => VERDICT_ORDER[verdict]));
    case 'score':
      return numbers(cases.score.map((value) => value ?? -1));
    case 'target':
      return numbers(rankNames(run.targetNames, cases.target));
    case 'evalFile':
      return numbers(rankNames(run.evalFileNames, cases.evalFile));
    case 'durationMs':
      return numbers(cases.durationMs);
    case 'costUsd':
      return numbers(cases.costUsd.map((value) => value ?? -1));
  }
}

/** Name indexes replaced by the names' alphabetical rank. */
function rankNames(names: string[], indexes: number[]): number[] {
  const sorted = names
    .map((name, index) => ({ name, index }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rank = new Array<number>(names.length);
  sorted.forEach((entry, position) => {
    rank[entry.index] = position;
  });
  return indexes.map((index) => rank[index]!);
}

const SORT_COLUMNS: SortColumn[] = ['verdict', 'score', 'id', 'target', 'evalFile', 'durationMs'];

const COLUMNS: { column: SortColumn; label: string; className: string }[] = [
  { column: 'verdict', label: 'Verdict', className: 'c-verdict' },
  { column: 'id', label: 'Case', className: 'c-id' },
  { column: 'score', label: 'Score', className: 'c-score' },
  { column: 'target', label: 'Target', className: 'c-target' },
  { column: 'evalFile', label: 'Eval file', className: 'c-file' },
  { column: 'durationMs', label: 'Time', className: 'c-time' },
];

/** The case table: a header that sorts, and only the rows in view rendered (any number of cases). */
export function CaseTable(props: {
  run: RunResponse;
  order: Int32Array;
  sort: CaseSort;
  onSort: (column: SortColumn) => void;
}) {
  const { run, order, sort } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  // The scroller is at most as tall as the window: rendering a window's height of rows always
  // fills it, however many rows there are (and as rows arrive while a run is written).
  const [viewport, setViewport] = useState(() => window.innerHeight);
  useEffect(() => {
    const measure = () => setViewport(window.innerHeight);
    window.addEventListener('resize', measure);
    return () => window.removeEventListener('resize', measure);
  }, []);
  useEffect(() => {
    if (scroller.current !== null) scroller.current.scrollTop = 0;
    setTop(0);
  }, [order]);
  const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(order.length, Math.ceil((top + viewport) / ROW_HEIGHT) + OVERSCAN);
  const rows = useMemo(() => {
    const out = [];
    for (let position = first; position < last; position++) {
      const index = order[position]!;
      const verdict = run.cases.verdict[index]!;
      out.push(
        <a
          class={`case-row ${verdict}`}
          key={index}
          href={href('case', { key: run.run.key, line: run.cases.line[index] })}
          style={{ top: `${position * ROW_HEIGHT}px` }}
          data-case={run.cases.id[index]}
        >
          <span class="c-verdict">
            <span class={`badge ${verdict}`}>{verdict}</span>
          </span>
          <span class="c-id">{run.cases.id[index]}</span>
          <span class="c-score">{score(run.cases.score[index])}</span>
          <span class="c-target">{run.targetNames[run.cases.target[index]!]}</span>
          <span class="c-file">{run.evalFileNames[run.cases.evalFile[index]!]}</span>
          <span class="c-time">{duration(run.cases.durationMs[index])}</span>
        </a>,
      );
    }
    return out;
  }, [run, order, first, last]);
  return (
    <div class="case-table" data-testid="case-table">
      <div class="case-head">
        {COLUMNS.map(({ column, label, className }) => (
          <button
            type="button"
            class={className}
            key={column}
            data-sort={column}
            aria-pressed={sort.column === column}
            onClick={() => props.onSort(column)}
          >
            {label}
            {sort.column === column ? (sort.descending ? ' ▼' : ' ▲') : ''}
          </button>
        ))}
      </div>
      <div
        class="case-scroll"
        ref={scroller}
        onScroll={(event) => setTop((event.currentTarget as HTMLDivElement).scrollTop)}
      >
        <div class="case-body" style={{ height: `${order.length * ROW_HEIGHT}px` }}>
          {rows}
        </div>
      </div>
      {order.length === 0 ? <p class="empty">No case matches these filters.</p> : null}
    </div>
  );
}
