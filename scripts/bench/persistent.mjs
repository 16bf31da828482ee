// Issue 17: a persistent Node agent (`mode: persistent`, one process per worker answering JSON
// lines) against the same agent started per case (N=1000, 4 workers); prints both per-case costs.
//
// Per-case cost: (time of N cases - time of N_SMALL cases) / (N - N_SMALL), so AgentV's own start
// and the workers' first start do not count. Medians of interleaved rounds; every run's result
// file is checked case by case. Budget: the persistent agent costs under a fifth of a start per case.
import { evalAndVerify, evalYaml, interleaved, ROUNDS, report, tempProject } from './support.mjs';

const N = 1000;
const N_SMALL = 10;
const WORKERS = 4;

// One agent, two ways to run it: with a request file it answers that case and exits (a process
// per case); without, it answers each request line of stdin (persistent).
const AGENT = `
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
const answer = (request) => JSON.stringify({ id: request.id, text: 'answer ' + request.id });
if (process.argv[2]) {
  process.stdout.write(answer(JSON.parse(readFileSync(process.argv[2], 'utf8'))));
} else {
  for await (const line of createInterface({ input: process.stdin })) {
    process.stdout.write(answer(JSON.parse(line)) + '\\n');
  }
}
`;

const MODES = {
  persistent: '    mode: persistent\n    command_template: node agent.mjs\n',
  'per case': '    command_template: node agent.mjs {INPUT_FILE}\n',
};

const projects = {};
for (const [name, settings] of Object.entries(MODES)) {
  projects[name] = tempProject({
    'agent.mjs': AGENT,
    '.agentv/targets.yaml': `targets:\n  - name: default\n    provider: cli\n    cwd: ..\n${settings}`,
    'evals/many.yaml': evalYaml(N),
    'evals/few.yaml': evalYaml(N_SMALL),
  });
}

function agentv(name, file, count) {
  return evalAndVerify(projects[name].dir, file, count, WORKERS);
}

try {
  const steps = {};
  for (const name of Object.keys(MODES)) {
    steps[name] = () => agentv(name, 'many', N);
    steps[`${name} small`] = () => agentv(name, 'few', N_SMALL);
  }
  const figures = await interleaved(steps);
  const perCase = {};
  for (const name of Object.keys(MODES)) {
    perCase[name] = (figures[name].ms - figures[`${name} small`].ms) / (N - N_SMALL);
    console.log(
      `${name}: agentv eval ${figures[name].ms.toFixed(0)} ms for ${N}, ` +
        `${figures[`${name} small`].ms.toFixed(0)} ms for ${N_SMALL}: ` +
        `${perCase[name].toFixed(2)} ms per case (medians of ${ROUNDS})`,
    );
  }
  const ratio = perCase.persistent / perCase['per case'];
  report(
    `node agent started per case: cost per case (N=${N}, ${WORKERS} workers)`,
    perCase['per case'].toFixed(2),
    'ms',
    'none (reference for mode: persistent)',
    true,
    { agentvMs: figures['per case'].ms, agentvSmallMs: figures['per case small'].ms },
  );
  const ok = report(
    `node agent with mode: persistent: cost per case (N=${N}, ${WORKERS} workers)`,
    perCase.persistent.toFixed(2),
    'ms',
    '< 0.2x the cost per case of starting it per case',
    ratio < 0.2,
    {
      ratio,
      perCaseStartMs: perCase['per case'],
      agentvMs: figures.persistent.ms,
      agentvSmallMs: figures['persistent small'].ms,
      peakMiB: figures.persistent.peakMiB,
    },
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  for (const project of Object.values(projects)) project.cleanup();
}
