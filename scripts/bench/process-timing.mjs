// Timing goals of the process runner (core's runProcess), moved here from unit tests, which
// keep only the behaviour: an agent reading stdin gets end-of-file at once; a timed-out agent
// that ignores SIGTERM is stopped soon after its grace period, grandchildren included; a code
// judge that exits while something it started still runs is scored without waiting for that.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { codeJudgeEvaluator } from '../../packages/core/dist/evaluators/code-judge.js';
import { createCliProvider } from '../../packages/provider-cli/dist/index.js';
import { report, tempProject } from './support.mjs';

const ROUNDS = 5;

const STDIN_AGENT = `
const started = performance.now();
let bytes = 0;
process.stdin.on('data', (chunk) => { bytes += chunk.length; });
process.stdin.on('end', () => process.stdout.write(JSON.stringify({ bytes, ms: performance.now() - started })));
`;

const STUBBORN_AGENT = `
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
process.on('SIGTERM', () => {});
const grandchild = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);"], { stdio: 'inherit' });
writeFileSync(process.argv[2], JSON.stringify({ agent: process.pid, grandchild: grandchild.pid }));
setInterval(() => {}, 1000);
`;

const project = tempProject({
  'stdin-agent.mjs': STDIN_AGENT,
  'stubborn-agent.mjs': STUBBORN_AGENT,
});

function provider(commandTemplate, settings = {}) {
  return createCliProvider(
    {
      commandTemplate,
      filesFormat: '{path}',
      attachmentsFormat: '{path}',
      cwd: project.dir,
      env: {},
      verbose: false,
      ...settings,
    },
    { targetName: 'bench', killGraceMs: 200 },
  );
}

function request(index) {
  return {
    evalCaseId: `case-${index}`,
    attempt: 0,
    question: 'q',
    chatPrompt: [{ role: 'user', content: 'q' }],
    guidelines: '',
    inputFiles: [],
    guidelineFiles: [],
  };
}

function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return process.platform !== 'linux';
  }
}

const middle = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function stdinEof() {
  const agent = provider(`node stdin-agent.mjs`);
  const times = [];
  for (let round = 0; round < ROUNDS; round++) {
    const response = await agent.invoke(request(round));
    const { bytes, ms } = JSON.parse(response.text);
    if (bytes !== 0) throw new Error(`the agent read ${bytes} bytes from stdin`);
    times.push(ms);
  }
  return middle(times);
}

async function timeoutStop() {
  const times = [];
  for (let round = 0; round < ROUNDS; round++) {
    const pidFile = path.join(project.dir, `pids-${round}.json`);
    const agent = provider(`node stubborn-agent.mjs ${pidFile}`, { timeoutSeconds: 0.5 });
    const started = performance.now();
    const error = await agent.invoke(request(round)).then(
      () => undefined,
      (failure) => failure,
    );
    times.push(performance.now() - started);
    if (!/^timed out after 0\.5s/.test(error?.message ?? '')) {
      throw new Error(`expected a timeout, got ${error?.message ?? 'an answer'}`);
    }
    const pids = JSON.parse(readFileSync(pidFile, 'utf8'));
    if (alive(pids.agent) || alive(pids.grandchild))
      throw new Error('the agent outlived its timeout');
  }
  return middle(times);
}

async function judgeLeftovers() {
  const context = {
    evalCase: {
      id: 'case-1',
      dataset: 'bench',
      filePath: path.join(project.dir, 'bench.yaml'),
      inputMessages: [],
      expectedMessages: [],
      evaluators: [],
    },
    question: 'q',
    candidateAnswer: 'a',
    traceSummary: null,
    guidelineFiles: [],
    inputFiles: [],
  };
  const times = [];
  for (let round = 0; round < ROUNDS; round++) {
    const pidFile = path.join(project.dir, `judge-${round}.pid`);
    writeFileSync(pidFile, '');
    const started = performance.now();
    const score = await codeJudgeEvaluator.evaluate(
      {
        name: 'judge',
        type: 'code_judge',
        script: `sleep 30 & echo $! > ${pidFile}; echo '{"score": 1}'`,
        timeout_seconds: 5,
      },
      context,
    );
    times.push(performance.now() - started);
    if (score.score !== 1) throw new Error(`expected score 1, got ${score.score}`);
    if (alive(Number(readFileSync(pidFile, 'utf8')))) throw new Error('the leftover still runs');
  }
  return middle(times);
}

try {
  const eofMs = await stdinEof();
  let ok = report(
    'cli agent: stdin end-of-file after',
    eofMs.toFixed(0),
    'ms',
    '< 500 ms',
    eofMs < 500,
  );
  const stopMs = await timeoutStop();
  ok =
    report(
      'cli agent ignoring SIGTERM (timeout 0.5 s, grace 0.2 s): stopped after',
      stopMs.toFixed(0),
      'ms',
      '< 2000 ms',
      stopMs < 2000,
    ) && ok;
  const judgeMs = await judgeLeftovers();
  ok =
    report(
      'code judge leaving `sleep 30 &` (timeout 5 s): scored after',
      judgeMs.toFixed(0),
      'ms',
      '< 4000 ms',
      judgeMs < 4000,
    ) && ok;
  console.log(`(medians of ${ROUNDS})`);
  process.exitCode = ok ? 0 : 1;
} finally {
  project.cleanup();
}
