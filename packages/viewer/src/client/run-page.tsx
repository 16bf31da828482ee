import { useEffect, useMemo, useState } from 'preact/hooks';
import type { RunResponse } from '../shared/api-types.js';
import { api } from './api.js';
import {
  type CaseFilter,
  type CaseSort,
  CaseTable,
  hasAnswers,
  NO_FILTER,
  prepareInBackground,
  type SortColumn,
  selectCases,
  setAnswers,
} from './case-table.js';
import { Histogram } from './charts.js';
import { cost, duration, percent, score, when } from './format.js';
import { href } from './router.js';
import { useData } from './use-data.js';
import { ErrorBox, Loading, Stat } from './widgets.js';

export function RunPage({ runKey }: { runKey: string }) {
  const { data, error } = useData(() => api.run(runKey), [runKey], [runKey]);
  if (data === undefined) return error ? <ErrorBox message={error} /> : <Loading />;
  return <RunView run={data} />;
}

function RunView({ run }: { run: RunResponse }) {
  const summary = run.run;
  const [filter, setFilter] = useState<CaseFilter>(NO_FILTER);
  // File order first: the first paint of a large run waits for no sort.
  const [sort, setSort] = useState<CaseSort>({ column: null, descending: false });
  const [answersLoaded, setAnswersLoaded] = useState(() => hasAnswers(run));
  const order = useMemo(() => selectCases(run, filter, sort), [run, filter, sort, answersLoaded]);
  useEffect(() => prepareInBackground(run), [run]);
  useEffect(() => {
    // After the first paint: the answers' text is most of a large run's bytes.
    let current = true;
    setAnswersLoaded(hasAnswers(run));
    api.runText(run.run.key).then(
      ({ text }) => {
        if (!current) return;
        setAnswers(run, text);
        setAnswersLoaded(true);
      },
      () => {},
    );
    return () => {
      current = false;
    };
  }, [run]);
  const set = (key: keyof CaseFilter) => (value: string) => setFilter({ ...filter, [key]: value });
  const onSort = (column: SortColumn) =>
    setSort(
      sort.column === column
        ? { column, descending: !sort.descending }
        : { column, descending: false },
    );
  return (
    <main class="page run-page">
      <nav class="crumbs">
        <a href={href('history')}>Runs</a> <span>/</span>{' '}
        <span class="crumb-current">{summary.key}</span>
      </nav>
      <h1 class="title" data-testid="run-title">
        {summary.key}
      </h1>
      <p class="meta">
        {when(summary.startedAt)} · {summary.evalFiles.join(', ') || 'no eval file'} ·{' '}
        {summary.targets.join(', ') || 'no target'}
        {summary.label ? ` · ${summary.label}` : ''}
        {summary.branch ? ` · ${summary.branch}` : ''}
      </p>
      {summary.problems.length > 0 ? (
        <div class="warning" role="alert">
          {summary.problems.length} line(s) of this file are not result lines and are not shown:
          line {summary.problems[0]!.line}: {summary.problems[0]!.message}
        </div>
      ) : null}
      <section class="stats" data-testid="summary">
        <Stat label="Cases" value={String(summary.cases)} />
        <Stat label="Passed" value={String(summary.passed)} tone="passed" />
        <Stat label="Failed" value={String(summary.failed)} tone="failed" />
        <Stat label="Errored" value={String(summary.errored)} tone="errored" />
        <Stat label="Pass rate" value={percent(summary.passRate, 1)} />
        <Stat label="Mean score" value={score(summary.meanScore)} />
        <Stat label="Cost" value={cost(summary.costUsd)} />
        <Stat label="Time" value={duration(summary.durationMs)} />
      </section>
      <section class="panels">
        <div class="panel">
          <h2>Scores</h2>
          <Histogram bars={run.histogram} />
        </div>
        <div class="panel">
          <h2>Metrics</h2>
          <table class="small-table" data-testid="metrics">
            <thead>
              <tr>
                <th>Metric</th>
                <th>Pass</th>
                <th>Borderline</th>
                <th>Fail</th>
                <th>Error</th>
              </tr>
            </thead>
            <tbody>
              {run.metrics.map((metric) => (
                <tr key={metric.metric}>
                  <td class="wrap">{metric.metric}</td>
                  <td>{metric.pass}</td>
                  <td>{metric.borderline}</td>
                  <td>{metric.fail}</td>
                  <td>{metric.error}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div class="panel">
          <h2>Failure classes</h2>
          {run.failureClasses.length === 0 ? (
            <p class="muted">No failure class recorded.</p>
          ) : (
            <table class="small-table" data-testid="failure-classes">
              <tbody>
                {run.failureClasses.map((entry) => (
                  <tr key={entry.name}>
                    <td class="wrap">
                      <button
                        type="button"
                        class="link"
                        onClick={() => set('failureClass')(entry.name)}
                      >
                        {entry.name}
                      </button>
                    </td>
                    <td>{entry.count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </section>
      {summary.targets.length > 1 ? (
        <p>
          <a
            class="button"
            href={href('compare', {
              base: summary.key,
              new: summary.key,
              baseTarget: summary.targets[0],
              newTarget: summary.targets[1],
            })}
          >
            Compare targets {summary.targets[0]} and {summary.targets[1]}
          </a>
        </p>
      ) : null}
      <section class="toolbar" data-testid="filters">
        <fieldset class="verdicts">
          <legend class="hidden">Verdict</legend>
          {['all', 'failed', 'errored', 'passed'].map((verdict) => (
            <button
              type="button"
              key={verdict}
              data-filter={verdict}
              aria-pressed={filter.verdict === verdict}
              onClick={() => set('verdict')(verdict)}
            >
              {verdict}
            </button>
          ))}
        </fieldset>
        <Choice
          label="Target"
          value={filter.target}
          options={run.targetNames}
          onChange={set('target')}
        />
        <Choice
          label="Eval file"
          value={filter.evalFile}
          options={run.evalFileNames}
          onChange={set('evalFile')}
        />
        <Choice
          label="Grader"
          value={filter.grader}
          options={run.graderNames}
          onChange={set('grader')}
        />
        <Choice label="Tag" value={filter.tag} options={run.tagNames} onChange={set('tag')} />
        <Choice
          label="Failure class"
          value={filter.failureClass}
          options={run.failureClassNames}
          onChange={set('failureClass')}
        />
        <input
          type="search"
          placeholder={answersLoaded ? 'Search ids and answers' : 'Search ids (answers loading)'}
          aria-label="Search"
          value={filter.text}
          onInput={(event) => set('text')((event.currentTarget as HTMLInputElement).value)}
        />
      </section>
      <p class="count" data-testid="case-count">
        {order.length} of {run.cases.id.length} cases
      </p>
      <CaseTable run={run} order={order} sort={sort} onSort={onSort} />
    </main>
  );
}

function Choice(props: {
  label: string;
  value: string;
  options: string[];
  onChange: (value: string) => void;
}) {
  if (props.options.length === 0) return null;
  return (
    <label class="choice">
      <span>{props.label}</span>
      <select
        data-filter-select={props.label}
        value={props.value}
        onChange={(event) => props.onChange((event.currentTarget as HTMLSelectElement).value)}
      >
        <option value="">all</option>
        {props.options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </label>
  );
}
