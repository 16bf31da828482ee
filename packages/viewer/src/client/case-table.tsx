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

/**
 * The indexes of the cases `filter` keeps, in `sort` order. Works on the run's columns
 * without building an object per case.
 */
export function selectCases(
  run: RunResponse,
  filter: CaseFilter,
  sort: { column: SortColumn; descending: boolean },
  searchText: string[],
): Int32Array {
  const cases = run.cases;
  const count = cases.id.length;
  const target = filter.target === '' ? -1 : run.targetNames.indexOf(filter.target);
  const evalFile = filter.evalFile === '' ? -1 : run.evalFileNames.indexOf(filter.evalFile);
  const grader = filter.grader === '' ? -1 : run.graderNames.indexOf(filter.grader);
  const tag = filter.tag === '' ? -1 : run.tagNames.indexOf(filter.tag);
  const failureClass =
    filter.failureClass === '' ? -1 : run.failureClassNames.indexOf(filter.failureClass);
  const text = filter.text.trim().toLowerCase();
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
  const order = kept.subarray(0, size);
  const direction = sort.descending ? -1 : 1;
  const key = sortKey(run, sort.column);
  if (key !== null) {
    // Stable: ties keep file order.
    order.sort((a, b) => {
      const left = key[a]!;
      const right = key[b]!;
      return left < right ? -direction : left > right ? direction : a - b;
    });
  } else if (sort.descending) {
    order.reverse();
  }
  return order;
}

function sortKey(run: RunResponse, column: SortColumn): (number | string)[] | null {
  const cases = run.cases;
  switch (column) {
    case 'id':
      return cases.id;
    case 'verdict':
      return cases.verdict.map((verdict) => VERDICT_ORDER[verdict]);
    case 'score':
      return cases.score.map((value) => value ?? -1);
    case 'target':
      return cases.target.map((at) => run.targetNames[at]!);
    case 'evalFile':
      return cases.evalFile.map((at) => run.evalFileNames[at]!);
    case 'durationMs':
      return cases.durationMs;
    case 'costUsd':
      return cases.costUsd.map((value) => value ?? -1);
  }
}

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
  sort: { column: SortColumn; descending: boolean };
  onSort: (column: SortColumn) => void;
}) {
  const { run, order, sort } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  useEffect(() => {
    const element = scroller.current;
    if (element === null) return;
    const measure = () => setViewport(element.clientHeight || 600);
    measure();
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
