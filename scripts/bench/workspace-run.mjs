// Budget: with an empty workspace template, AgentV's own cost per case (N=1000, 4 workers, a
// trivial shell agent) is at most 2 ms over the same run without a workspace block: taking a
// pooled workspace, its reset, baseline and changes, the release, and saving the case's changes
// beside the result file.
//
// Marginal cost, as in per-case.mjs: (time of N cases - time of N_SMALL cases) / (N - N_SMALL) for
// each run, so start-up and the one-time workspace set-up do not count; the figure is the
// difference of the two. Every measurement is a median of interleaved rounds; every run's result
// file is checked case by case, and the workspace run's lines must all carry a workspace summary.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { evalAndVerify, evalYaml, interleaved, ROUNDS, report, tempProject } from './support.mjs';

const N = 1000;
const N_SMALL = 10;
const WORKERS = 4;
const BUDGET_MS = 2;

const withWorkspace = (count) =>
  evalYaml(count).replace('evalcases:', 'workspace: { template: ./empty }\nevalcases:');

const project = tempProject({
  '.agentv/targets.yaml':
    'targets:\n  - name: default\n    provider: cli\n    command_template: echo answer {EVAL_ID}\n',
  'evals/plain-many.yaml': evalYaml(N),
  'evals/plain-few.yaml': evalYaml(N_SMALL),
  'evals/workspace-many.yaml': withWorkspace(N),
  'evals/workspace-few.yaml': withWorkspace(N_SMALL),
});
mkdirSync(path.join(project.dir, 'evals', 'empty'));

/** The run, checked; for a workspace run also that every line has its `workspace` summary. */
function run(file, count) {
  const measured = evalAndVerify(project.dir, file, count, WORKERS);
  if (file.startsWith('workspace')) {
    const lines = readFileSync(path.join(project.dir, `${file}.jsonl`), 'utf8')
      .trim()
      .split('\n');
    const missing = lines.filter((line) => JSON.parse(line).workspace?.files_changed !== 0);
    if (missing.length > 0) throw new Error(`${file}: ${missing.length} lines without a workspace`);
  }
  return measured;
}

try {
  const medians = await interleaved({
    'plain many': () => run('plain-many', N),
    'plain few': () => run('plain-few', N_SMALL),
    'workspace many': () => run('workspace-many', N),
    'workspace few': () => run('workspace-few', N_SMALL),
  });
  const perCase = (name) =>
    (medians[`${name} many`].ms - medians[`${name} few`].ms) / (N - N_SMALL);
  const plain = perCase('plain');
  const workspace = perCase('workspace');
  const extra = workspace - plain;
  console.log(
    `per case (median of ${ROUNDS}): without a workspace ${plain.toFixed(2)} ms, with an empty template ${workspace.toFixed(2)} ms`,
  );
  const ok = report(
    'workspace cost per case (empty template, pooled)',
    extra.toFixed(2),
    'ms',
    `<= ${BUDGET_MS} ms`,
    extra <= BUDGET_MS,
    { withoutMs: plain, withMs: workspace, cases: N, workers: WORKERS },
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  project.cleanup();
}
