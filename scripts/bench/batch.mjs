// SPEC 8: 10,000 batch cases answered by one process cost under 0.1 ms per case in AgentV
// itself, and peak memory stays under 300 MiB for 100,000 batch cases.
import { AGENTV, evalYaml, report, tempProject, timed } from './support.mjs';

const RUNNER = `
import { readFileSync, writeFileSync } from 'node:fs';
const started = performance.now();
const [input, output] = process.argv.slice(2);
const lines = readFileSync(input, 'utf8').split('\\n').filter(Boolean).map((line) => {
  const { id } = JSON.parse(line);
  return JSON.stringify({ id, text: 'answer ' + id });
});
writeFileSync(output, lines.join('\\n') + '\\n');
writeFileSync('runner-ms.txt', String(performance.now() - started));
`;
const TARGETS = `targets:
  - name: default
    provider: cli
    cwd: ..
    provider_batching: true
    command_template: node runner.mjs {INPUT_FILE} {OUTPUT_FILE}
`;

function run(count) {
  const project = tempProject({
    'runner.mjs': RUNNER,
    '.agentv/targets.yaml': TARGETS,
    'evals/batch.yaml': evalYaml(count),
  });
  try {
    const { ms } = timed(
      '/usr/bin/time',
      ['-f', '%M', process.execPath, AGENTV, 'eval', 'evals/batch.yaml', '--out', 'out.jsonl'],
      { cwd: project.dir, env: { ...process.env, CI: '1' } },
    );
    const { result } = timed(
      '/usr/bin/time',
      ['-f', '%M', process.execPath, AGENTV, 'eval', 'evals/batch.yaml', '--out', 'out2.jsonl'],
      {
        cwd: project.dir,
        env: { ...process.env, CI: '1' },
      },
    );
    const peakKiB = Number(result.stderr.trim().split('\n').at(-1));
    const runnerMs = Number(timed('cat', ['runner-ms.txt'], { cwd: project.dir }).result.stdout);
    const nodeStartMs = timed(process.execPath, ['-e', '0']).ms;
    return { ms, peakMiB: peakKiB / 1024, agentMs: runnerMs + nodeStartMs };
  } finally {
    project.cleanup();
  }
}

let ok = true;
const small = run(10_000);
const perCase = (small.ms - small.agentMs) / 10_000;
ok =
  report(
    'batch of 10,000: AgentV time per case',
    perCase.toFixed(3),
    'ms',
    '< 0.1 ms',
    perCase < 0.1,
  ) && ok;
const large = run(100_000);
ok =
  report(
    'batch of 100,000: peak memory',
    large.peakMiB.toFixed(0),
    'MiB',
    '< 300 MiB',
    large.peakMiB < 300,
  ) && ok;
process.exitCode = ok ? 0 : 1;
