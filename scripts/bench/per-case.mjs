// Budget: the marginal cost per case of a run with a trivial shell agent (N=1000, 4 workers) is
// within 1.3x of what Node needs just to spawn the same command N times through a shell (4 at a
// time), with the answer on stdout and with it in {OUTPUT_FILE}; peak memory stays under 90 MiB.
//
// Marginal cost: (time of N cases - time of N_SMALL cases) / (N - N_SMALL), for AgentV and for
// the bare spawns alike, so process start and module loading (a fixed cost, see startup.mjs)
// do not count as per-case cost. The whole-run ratio is printed and kept in the JSON too.
// Every measurement is a median of interleaved rounds; every AgentV run's result file is checked.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { evalAndVerify, evalYaml, interleaved, ROUNDS, report, tempProject } from './support.mjs';

const N = 1000;
const N_SMALL = 10;
const WORKERS = 4;

const AGENTS = {
  stdout: {
    template: 'echo answer {EVAL_ID}',
    bare: (id) => `echo answer ${id}`,
  },
  'output-file': {
    template: 'echo answer {EVAL_ID} > {OUTPUT_FILE}',
    bare: (id, dir) => `echo answer ${id} > ${dir}/${id}.txt`,
    read: (id, dir) => readFileSync(`${dir}/${id}.txt`, 'utf8'),
  },
};

/** Node spawning the agent's command `count` times, `WORKERS` at a time, reading each answer. */
async function spawnFloor(agent, count) {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentv-bench-floor-'));
  try {
    const started = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const id = `case-${next++}`;
        const stdout = await new Promise((resolve, reject) => {
          const child = spawn('/bin/sh', ['-c', agent.bare(id, dir)], {
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let text = '';
          child.stdout.on('data', (chunk) => {
            text += chunk;
          });
          child.stderr.resume();
          child.on('error', reject);
          child.on('close', () => resolve(text));
        });
        const answer = agent.read ? agent.read(id, dir) : stdout;
        if (answer.trim() !== `answer ${id}`) throw new Error(`bare spawn answered ${answer}`);
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    return performance.now() - started;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const projects = {};
for (const [name, agent] of Object.entries(AGENTS)) {
  projects[name] = tempProject({
    '.agentv/targets.yaml': `targets:\n  - name: default\n    provider: cli\n    command_template: ${agent.template}\n`,
    'evals/many.yaml': evalYaml(N),
    'evals/few.yaml': evalYaml(N_SMALL),
  });
}

function agentv(name, file, count) {
  return evalAndVerify(projects[name].dir, file, count, WORKERS);
}

try {
  const steps = {};
  for (const [name, agent] of Object.entries(AGENTS)) {
    steps[`${name} floor`] = async () => ({ ms: await spawnFloor(agent, N) });
    steps[`${name} floor small`] = async () => ({ ms: await spawnFloor(agent, N_SMALL) });
    steps[`${name} agentv`] = () => agentv(name, 'many', N);
    steps[`${name} agentv small`] = () => agentv(name, 'few', N_SMALL);
  }
  const figures = await interleaved(steps);
  let ok = true;
  let peakMiB = 0;
  for (const name of Object.keys(AGENTS)) {
    const floor = figures[`${name} floor`].ms;
    const floorSmall = figures[`${name} floor small`].ms;
    const run = figures[`${name} agentv`];
    const runSmall = figures[`${name} agentv small`];
    const floorPerCase = (floor - floorSmall) / (N - N_SMALL);
    const perCase = (run.ms - runSmall.ms) / (N - N_SMALL);
    const ratio = perCase / floorPerCase;
    peakMiB = Math.max(peakMiB, run.peakMiB);
    console.log(
      `${name}: bare spawns ${floor.toFixed(0)} ms for ${N}, ${floorSmall.toFixed(0)} ms for ${N_SMALL}; ` +
        `agentv eval ${run.ms.toFixed(0)} ms for ${N}, ${runSmall.ms.toFixed(0)} ms for ${N_SMALL}; ` +
        `whole run / bare spawns ${(run.ms / floor).toFixed(2)}x (medians of ${ROUNDS})`,
    );
    ok =
      report(
        `agentv eval per case, answer ${name === 'stdout' ? 'on stdout' : 'in {OUTPUT_FILE}'} (N=${N}, ${WORKERS} workers) / bare spawns`,
        ratio.toFixed(2),
        'x',
        '<= 1.3x',
        ratio <= 1.3,
        {
          agentvMsPerCase: perCase,
          floorMsPerCase: floorPerCase,
          agentvMs: run.ms,
          agentvSmallMs: runSmall.ms,
          floorMs: floor,
          floorSmallMs: floorSmall,
          wholeRunRatio: run.ms / floor,
        },
      ) && ok;
  }
  ok =
    report(
      `agentv eval (N=${N}) peak memory`,
      peakMiB.toFixed(0),
      'MiB',
      '< 90 MiB',
      peakMiB < 90,
    ) && ok;
  process.exitCode = ok ? 0 : 1;
} finally {
  for (const project of Object.values(projects)) project.cleanup();
}
