import { useMemo, useState } from 'preact/hooks';
import type { RunSummary } from '../shared/api-types.js';
import { api } from './api.js';
import { Trend } from './charts.js';
import { cost, duration, percent, score, when } from './format.js';
import { href } from './router.js';
import { useData } from './use-data.js';
import { ErrorBox, Loading } from './widgets.js';

interface HistoryFilter {
  target: string;
  evalFile: string;
  tag: string;
  label: string;
}

const NONE: HistoryFilter = { target: '', evalFile: '', tag: '', label: '' };

export function HistoryPage() {
  const { data, error } = useData(() => api.runs(), [], 'any');
  const [filter, setFilter] = useState<HistoryFilter>(NONE);
  const [picked, setPicked] = useState<string[]>([]);
  const runs = data?.runs ?? [];
  const choices = useMemo(() => {
    const of = (pick: (run: RunSummary) => (string | null)[]) =>
      [...new Set(runs.flatMap(pick).filter((value): value is string => !!value))].sort();
    return {
      target: of((run) => run.targets),
      evalFile: of((run) => run.evalFiles),
      tag: of((run) => run.tags),
      label: of((run) => [run.label, run.branch]),
    };
  }, [runs]);
  const shown = runs.filter(
    (run) =>
      (filter.target === '' || run.targets.includes(filter.target)) &&
      (filter.evalFile === '' || run.evalFiles.includes(filter.evalFile)) &&
      (filter.tag === '' || run.tags.includes(filter.tag)) &&
      (filter.label === '' || run.label === filter.label || run.branch === filter.label),
  );
  const trends = useMemo(() => trendsOf(shown, filter), [shown, filter]);
  if (data === undefined) return error ? <ErrorBox message={error} /> : <Loading />;
  const toggle = (key: string) =>
    setPicked(
      picked.includes(key) ? picked.filter((each) => each !== key) : [...picked.slice(-1), key],
    );
  return (
    <main class="page history-page">
      <h1 class="title">Runs</h1>
      <p class="meta">
        {runs.length} result file(s) in {data.sources.join(', ')}
      </p>
      {runs.length === 0 ? (
        <p class="empty" data-testid="no-runs">
          No result file yet. Run <code>agentv eval</code>: its results appear here as it writes
          them.
        </p>
      ) : null}
      <section class="toolbar" data-testid="history-filters">
        {(['target', 'evalFile', 'tag', 'label'] as const).map((key) =>
          choices[key].length === 0 ? null : (
            <label class="choice" key={key}>
              <span>
                {
                  { target: 'Target', evalFile: 'Eval file', tag: 'Tag', label: 'Branch or label' }[
                    key
                  ]
                }
              </span>
              <select
                data-history-filter={key}
                value={filter[key]}
                onChange={(event) =>
                  setFilter({ ...filter, [key]: (event.currentTarget as HTMLSelectElement).value })
                }
              >
                <option value="">all</option>
                {choices[key].map((option) => (
                  <option key={option} value={option}>
                    {option}
                  </option>
                ))}
              </select>
            </label>
          ),
        )}
        {picked.length === 2 ? (
          <a
            class="button primary"
            data-testid="compare-picked"
            href={href('compare', { base: picked[0], new: picked[1] })}
          >
            Compare the two runs
          </a>
        ) : (
          <span class="muted">Tick two runs to compare them.</span>
        )}
      </section>
      {trends.length > 0 ? (
        <section class="trends" data-testid="trends">
          {trends.map((trend) => (
            <Trend key={trend.title} title={trend.title} points={trend.points} />
          ))}
        </section>
      ) : null}
      <div class="table-scroll">
        <table class="runs" data-testid="runs">
          <thead>
            <tr>
              <th aria-label="Pick" />
              <th>Run</th>
              <th>When</th>
              <th>Eval files</th>
              <th>Targets</th>
              <th>Cases</th>
              <th>Pass rate</th>
              <th>Mean</th>
              <th>Cost</th>
              <th>Time</th>
            </tr>
          </thead>
          <tbody>
            {shown
              .slice()
              .reverse()
              .map((run) => (
                <tr key={run.key} class="run-row" data-run={run.key}>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`pick ${run.key}`}
                      checked={picked.includes(run.key)}
                      onChange={() => toggle(run.key)}
                    />
                  </td>
                  <td class="wrap">
                    <a href={href('run', { key: run.key })}>{run.key}</a>
                    {run.label || run.branch ? (
                      <span class="muted">
                        {' '}
                        {[run.label, run.branch].filter(Boolean).join(' · ')}
                      </span>
                    ) : null}
                  </td>
                  <td>{when(run.startedAt)}</td>
                  <td class="wrap">{run.evalFiles.join(', ')}</td>
                  <td class="wrap">{run.targets.join(', ')}</td>
                  <td>{run.cases}</td>
                  <td>{percent(run.passRate, 1)}</td>
                  <td>{score(run.meanScore)}</td>
                  <td>{cost(run.costUsd)}</td>
                  <td>{duration(run.durationMs)}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </div>
    </main>
  );
}

/** Pass rate over the runs per (eval file, target), oldest run first; at most 12 series. */
function trendsOf(runs: RunSummary[], filter: HistoryFilter) {
  const series = new Map<
    string,
    { title: string; points: { label: string; value: number | null }[] }
  >();
  for (const run of runs) {
    for (const point of run.series) {
      if (filter.target !== '' && point.target !== filter.target) continue;
      if (filter.evalFile !== '' && point.evalFile !== filter.evalFile) continue;
      const title = `${point.evalFile} · ${point.target}`;
      let entry = series.get(title);
      if (entry === undefined) {
        entry = { title, points: [] };
        series.set(title, entry);
      }
      entry.points.push({ label: `${run.key}: ${percent(point.passRate)}`, value: point.passRate });
    }
  }
  return [...series.values()].slice(0, 12);
}
