// Budget: 10,000 and 100,000 batch cases answered by one process cost under 0.05 ms per case in
// AgentV itself, and peak memory stays under 250 MiB for 100,000 batch cases. AgentV's own time
// is the run's wall time minus the runner's own time and a Node start (AgentV's, timed the same
// way: under /usr/bin/time). The runner is the user's agent: its own time is its whole life, from
// its process start (Node's performance.timeOrigin, which performance.now() counts from) to its
// last write; the JSON also keeps the time it spent after its own start-up (`runnerWorkMs`) and
// the per-case figure with only that subtracted (`perCaseChargingRunnerStart`), which charges the
// runner's start to AgentV. Medians of interleaved rounds; every run's result file is checked
// (every case, its answer, passed).
import path from 'node:path';
import {
  casesJsonl,
  evalWithDataset,
  evalYaml,
  interleaved,
  ROUNDS,
  report,
  tempProject,
  timed,
  timedAgentv,
  verifyResults,
} from './support.mjs';

// Large eval sets come as datasets (issue 12): the cases are read from `cases: ./cases.jsonl`.
// `false` reads the same cases from inline YAML instead, for comparison.
const USE_JSONL_DATASET = true;

const RUNNER = `
import { readFileSync, writeFileSync } from 'node:fs';
const started = performance.now();
const [input, output] = process.argv.slice(2);
const lines = readFileSync(input, 'utf8').split('\\n').filter(Boolean).map((line) => {
  const { id } = JSON.parse(line);
  return JSON.stringify({ id, text: 'answer ' + id });
});
writeFileSync(output, lines.join('\\n') + '\\n');
const ended = performance.now();
writeFileSync('runner-ms.txt', JSON.stringify({ life: ended, work: ended - started }));
`;
const TARGETS = `targets:
  - name: default
    provider: cli
    cwd: ..
    provider_batching: true
    command_template: node runner.mjs {INPUT_FILE} {OUTPUT_FILE}
`;
const SIZES = [10_000, 100_000];

function project(count) {
  const cases = USE_JSONL_DATASET
    ? {
        'evals/batch.yaml': evalWithDataset('./cases.jsonl'),
        'evals/cases.jsonl': casesJsonl(count),
      }
    : { 'evals/batch.yaml': evalYaml(count) };
  return tempProject({ 'runner.mjs': RUNNER, '.agentv/targets.yaml': TARGETS, ...cases });
}

const projects = Object.fromEntries(SIZES.map((count) => [count, project(count)]));

function run(count) {
  const { dir } = projects[count];
  const { ms, peakMiB } = timedAgentv(['eval', 'evals/batch.yaml', '--out', 'out.jsonl'], {
    cwd: dir,
  });
  verifyResults(path.join(dir, 'out.jsonl'), count, (id) => `answer ${id}`);
  const runner = JSON.parse(timed('cat', ['runner-ms.txt'], { cwd: dir }).result.stdout);
  return { ms, peakMiB, runnerMs: runner.life, runnerWorkMs: runner.work };
}

try {
  // Timed like the runs it is taken from: under /usr/bin/time, whose own start is then in both.
  const steps = {
    node: () => ({ ms: timed('/usr/bin/time', ['-f', '%M', process.execPath, '-e', '0']).ms }),
  };
  for (const count of SIZES) steps[count] = () => run(count);
  const figures = await interleaved(steps);
  let ok = true;
  for (const count of SIZES) {
    const { ms, peakMiB, runnerMs, runnerWorkMs } = figures[count];
    const perCase = (ms - runnerMs - figures.node.ms) / count;
    const perCaseChargingRunnerStart = (ms - runnerWorkMs - figures.node.ms) / count;
    console.log(
      `batch of ${count.toLocaleString('en')} (${USE_JSONL_DATASET ? 'JSONL dataset' : 'inline YAML'}): ` +
        `${ms.toFixed(0)} ms, runner ${runnerMs.toFixed(0)} ms (${runnerWorkMs.toFixed(0)} ms after its start-up), node start ${figures.node.ms.toFixed(0)} ms, ` +
        `peak ${peakMiB.toFixed(0)} MiB (medians of ${ROUNDS})`,
    );
    ok =
      report(
        `batch of ${count.toLocaleString('en')}: AgentV time per case`,
        perCase.toFixed(3),
        'ms',
        '< 0.05 ms',
        perCase < 0.05,
        {
          wallMs: ms,
          runnerMs,
          runnerWorkMs,
          perCaseChargingRunnerStart,
          nodeStartMs: figures.node.ms,
          input: USE_JSONL_DATASET ? 'jsonl' : 'yaml',
        },
      ) && ok;
    if (count === 100_000) {
      ok =
        report(
          `batch of ${count.toLocaleString('en')}: peak memory`,
          peakMiB.toFixed(0),
          'MiB',
          '< 250 MiB',
          peakMiB < 250,
        ) && ok;
    }
  }
  process.exitCode = ok ? 0 : 1;
} finally {
  for (const { cleanup } of Object.values(projects)) cleanup();
}
