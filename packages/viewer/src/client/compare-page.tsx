import type { JSX } from 'preact';
import type { CompareResponse } from '../shared/api-types.js';
import { api } from './api.js';
import { percent, score, signed } from './format.js';
import { href } from './router.js';
import { useData } from './use-data.js';
import { ErrorBox, Loading, Stat } from './widgets.js';

export function ComparePage(props: {
  base: string;
  next: string;
  baseTarget: string | null;
  newTarget: string | null;
}) {
  const { base, next, baseTarget, newTarget } = props;
  const { data, error } = useData(
    () => api.compare(base, next, baseTarget, newTarget),
    [base, next, baseTarget, newTarget],
    [base, next],
  );
  const runs = useData(() => api.runs(), [], 'none');
  const targetsOf = (key: string) => runs.data?.runs.find((run) => run.key === key)?.targets ?? [];
  const pick = (side: 'baseTarget' | 'newTarget') => (target: string) => {
    const params = { base, new: next, baseTarget, newTarget, [side]: target };
    location.hash = href('compare', params);
  };
  const pickers = (
    <section class="toolbar" data-testid="compare-targets">
      <TargetChoice
        label="Base target"
        value={baseTarget}
        options={targetsOf(base)}
        onChange={pick('baseTarget')}
      />
      <TargetChoice
        label="New target"
        value={newTarget}
        options={targetsOf(next)}
        onChange={pick('newTarget')}
      />
    </section>
  );
  if (data === undefined) {
    return error ? (
      <main class="page">
        {pickers}
        <ErrorBox message={error} />
      </main>
    ) : (
      <Loading />
    );
  }
  return <CompareView comparison={data} pickers={pickers} />;
}

function TargetChoice(props: {
  label: string;
  value: string | null;
  options: string[];
  onChange: (value: string) => void;
}) {
  if (props.options.length < 2) return null;
  return (
    <label class="choice">
      <span>{props.label}</span>
      <select
        value={props.value ?? ''}
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

function side(run: string, target: string | null): string {
  return target === null ? run : `${run} (${target})`;
}

function CompareView({
  comparison,
  pickers,
}: {
  comparison: CompareResponse;
  pickers: JSX.Element;
}) {
  const c = comparison;
  const interval = (change: CompareResponse['passRate']) =>
    `${signed(change.delta * 100, 1)} pts [${signed(change.ci95[0] * 100, 1)}, ${signed(change.ci95[1] * 100, 1)}]`;
  return (
    <main class="page compare-page">
      <nav class="crumbs">
        <a href={href('history')}>Runs</a> <span>/</span> <span class="crumb-current">Compare</span>
      </nav>
      <h1 class="title">Compare</h1>
      <p class="meta">
        base <a href={href('run', { key: c.base.run })}>{side(c.base.run, c.base.target)}</a> → new{' '}
        <a href={href('run', { key: c.next.run })}>{side(c.next.run, c.next.target)}</a>
      </p>
      {pickers}
      <section class="stats" data-testid="compare-summary">
        <Stat
          label="Regressions"
          value={String(c.regressions)}
          tone={c.regressions > 0 ? 'failed' : ''}
        />
        <Stat label="Fixes" value={String(c.fixes)} tone={c.fixes > 0 ? 'passed' : ''} />
        <Stat label="Wins / losses / ties" value={`${c.wins} / ${c.losses} / ${c.ties}`} />
        <Stat
          label="Pass rate"
          value={`${percent(c.passRate.base, 1)} → ${percent(c.passRate.new, 1)}`}
        />
        <Stat label="Mean score" value={`${score(c.meanScore.base)} → ${score(c.meanScore.new)}`} />
      </section>
      <table class="small-table stats-table" data-testid="compare-statistics">
        <tbody>
          <tr>
            <th>
              Pass-rate change, 95% CI (paired bootstrap, {c.bootstrap.resamples} resamples, seed{' '}
              {c.bootstrap.seed})
            </th>
            <td>{interval(c.passRate)}</td>
          </tr>
          <tr>
            <th>Mean-score change, 95% CI</th>
            <td>
              {signed(c.meanScore.delta, 3)} [{signed(c.meanScore.ci95[0], 3)},{' '}
              {signed(c.meanScore.ci95[1], 3)}]
            </td>
          </tr>
          <tr>
            <th>
              McNemar ({c.mcnemar.method === 'exact' ? 'exact binomial' : 'chi-square'}), b ={' '}
              {c.mcnemar.b}, c = {c.mcnemar.c}
            </th>
            <td>
              p ={' '}
              {c.mcnemar.pValue < 0.001
                ? c.mcnemar.pValue.toExponential(2)
                : c.mcnemar.pValue.toFixed(3)}
            </td>
          </tr>
        </tbody>
      </table>
      <div class="table-scroll">
        <table class="compare-cases" data-testid="compare-cases">
          <thead>
            <tr>
              <th>Change</th>
              <th>Case</th>
              <th>Eval file</th>
              <th>Base</th>
              <th>New</th>
              <th>Δ</th>
            </tr>
          </thead>
          <tbody>
            {c.cases.slice(0, 2000).map((entry) => (
              <tr key={`${entry.evalFile}\0${entry.evalId}`} class={`compare-row ${entry.change}`}>
                <td>
                  <span class={`badge ${entry.change}`}>{entry.change.replace('_', ' ')}</span>
                </td>
                <td class="wrap">{entry.evalId}</td>
                <td class="wrap">{entry.evalFile}</td>
                <td>
                  {entry.baseLine === null ? (
                    score(entry.baseScore)
                  ) : (
                    <a href={href('case', { key: c.base.run, line: entry.baseLine })}>
                      {score(entry.baseScore)}
                    </a>
                  )}
                </td>
                <td>
                  {entry.newLine === null ? (
                    score(entry.newScore)
                  ) : (
                    <a href={href('case', { key: c.next.run, line: entry.newLine })}>
                      {score(entry.newScore)}
                    </a>
                  )}
                </td>
                <td>{signed(entry.delta)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {c.cases.length > 2000 ? (
        <p class="muted">The first 2,000 of {c.cases.length} cases are shown, regressions first.</p>
      ) : null}
      {c.onlyInBase.length + c.onlyInNew.length > 0 ? (
        <p class="muted">
          {c.onlyInBase.length} case(s) only in the base, {c.onlyInNew.length} only in the new run.
        </p>
      ) : null}
    </main>
  );
}
