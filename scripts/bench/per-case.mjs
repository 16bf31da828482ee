// SPEC 8: a run of N=1000 cases with a trivial command agent on 4 workers costs within 1.5x of
// the time Node needs just to spawn the same command N times through a shell (4 at a time),
// and peaks under 100 MiB of memory.
import { spawn } from 'node:child_process';
import { AGENTV, evalYaml, report, tempProject, timed } from './support.mjs';

const N = 1000;
const WORKERS = 4;
const COMMAND = 'echo answer';

async function spawnBaseline() {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < N) {
      next++;
      await new Promise((resolve, reject) => {
        const child = spawn('/bin/sh', ['-c', COMMAND], { stdio: ['ignore', 'pipe', 'pipe'] });
        child.stdout.resume();
        child.on('error', reject);
        child.on('close', resolve);
      });
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  return performance.now() - started;
}

const project = tempProject({
  '.agentv/targets.yaml': `targets:\n  - name: default\n    provider: cli\n    command_template: ${COMMAND}\n`,
  'evals/many.yaml': evalYaml(N),
});
try {
  // Interleaved pairs, compared by medians: single runs on a shared 2-core machine vary by ±25%.
  const baselines = [];
  const runs = [];
  let peakMiB = 0;
  for (let round = 0; round < 3; round++) {
    baselines.push(await spawnBaseline());
    const { ms, result } = timed(
      '/usr/bin/time',
      [
        '-f',
        '%M',
        process.execPath,
        AGENTV,
        'eval',
        'evals/many.yaml',
        '--workers',
        String(WORKERS),
        '--out',
        'out.jsonl',
      ],
      { cwd: project.dir, env: { ...process.env, CI: '1' } },
    );
    runs.push(ms);
    peakMiB = Math.max(peakMiB, Number(result.stderr.trim().split('\n').at(-1)) / 1024);
  }
  const middle = (values) => [...values].sort((a, b) => a - b)[1];
  const baselineMs = middle(baselines);
  const ms = middle(runs);
  const ratio = ms / baselineMs;
  console.log(
    `spawning "${COMMAND}" ${N}x on ${WORKERS} workers: ${baselineMs.toFixed(0)} ms; agentv eval of ${N} cases: ${ms.toFixed(0)} ms (medians of 3)`,
  );
  let ok = report(
    `agentv eval (N=${N}) / bare spawns`,
    ratio.toFixed(2),
    'x',
    '<= 1.5x',
    ratio <= 1.5,
  );
  ok =
    report(
      `agentv eval (N=${N}) peak memory`,
      peakMiB.toFixed(0),
      'MiB',
      '< 100 MiB',
      peakMiB < 100,
    ) && ok;
  process.exitCode = ok ? 0 : 1;
} finally {
  project.cleanup();
}
