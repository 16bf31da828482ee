// Budget: AgentV's own cost per case around a coding agent (its workspace, config home, stream
// parsing and transcript) is <= 50 ms and <= 2% of the agent's own wall time, on a scripted task.
//
// The agent is the real Codex CLI (the pinned one the tests install into
// node_modules/.cache/agentv-agents/, or $AGENTV_AGENT_CACHE) against a scripted OpenAI Responses
// server on 127.0.0.1: one shell command, then an answer. The target's `executable` is a small
// shell script that runs Codex and logs when each call began and ended, so the agent's own time is
// measured in every run rather than in separate runs (Codex's time varies more from call to call
// than AgentV's cost, so a difference of two separate measurements was mostly noise). AgentV's cost
// per case is the marginal wall time of `agentv eval` per case (N cases minus 1 case, over N - 1,
// one worker) less the marginal agent time of the same runs; medians of interleaved rounds. The
// script's own start and end (a shell, a `date` before the agent, the log line after it) are the
// bench's, not AgentV's: each round measures them by running the same script around `true`
// (its wall time, less what it logged, less a direct run of `true`) and takes them off. Without
// the installed CLI the figures are reported as skipped, not failed.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { evalAndVerify, interleaved, middle, report, tempProject } from './support.mjs';

// Enough cases that the one-case run's start-up noise, spread over N - 1, stays a few ms.
const N = 24;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CACHE =
  process.env.AGENTV_AGENT_CACHE ?? path.join(ROOT, 'node_modules/.cache/agentv-agents');
const CODEX = path.join(CACHE, '@openai+codex@0.169.0/node_modules/.bin/codex');

if (!existsSync(CODEX)) {
  console.log(`skipped: no Codex CLI at ${CODEX} (the provider-coding-agents tests install it)`);
  report(
    'coding-agent overhead per case',
    0,
    'ms',
    '<= 50 ms (skipped: Codex not installed)',
    true,
    {
      skipped: true,
    },
  );
  process.exit(0);
}

/**
 * A scripted Responses server, in a process of its own (the runs below are timed with spawnSync,
 * which blocks this one): a shell command first, then the answer `answer <case id>`.
 */
const SERVER = `
const { createServer } = require('node:http');
const sse = (res, item) => {
  const response = { id: 'r', object: 'response', model: 'gpt-5', output: [] };
  const usage = { input_tokens: 100, output_tokens: 20, total_tokens: 120 };
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const event of [
    { type: 'response.created', response },
    { type: 'response.output_item.added', output_index: 0, item },
    { type: 'response.output_item.done', output_index: 0, item },
    { type: 'response.completed', response: { ...response, output: [item], usage } },
  ]) res.write('event: ' + event.type + '\\ndata: ' + JSON.stringify(event) + '\\n\\n');
  res.end();
};
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const input = JSON.parse(body || '{}').input || [];
    const id = (/case-\\d+/.exec(JSON.stringify(input)) || ['unknown'])[0];
    const called = input.some((item) => item.type === 'function_call');
    sse(res, called
      ? { type: 'message', id: 'm', role: 'assistant', status: 'completed',
          content: [{ type: 'output_text', text: 'answer ' + id, annotations: [] }] }
      : { type: 'function_call', id: 'f', call_id: 'c', name: 'exec_command',
          arguments: JSON.stringify({ cmd: 'ls && echo changed > notes.txt' }) });
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

function startServer() {
  const child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (chunk) =>
      resolve({ server: child, port: Number(String(chunk).trim()) }),
    );
    child.once('error', reject);
  });
}

const { server, port } = await startServer();
const baseUrl = `http://127.0.0.1:${port}/v1`;
const evalFile = (count) =>
  [
    '$schema: agentv-eval-v2',
    'execution: { target: codex }',
    'workspace: { template: ../repo, mode: temp }',
    'evalcases:',
    ...Array.from(
      { length: count },
      (_, i) =>
        `  - { id: case-${i}, input_messages: [{ role: user, content: "case-${i}" }], evaluators: [{ name: a, type: contains, value: answer }] }`,
    ),
    '',
  ].join('\n');
const project = tempProject({
  '.agentv/targets.yaml': '',
  'evals/one.yaml': evalFile(1),
  'evals/many.yaml': evalFile(N),
  'repo/src/index.js': 'export const x = 1;\n',
  'repo/README.md': '# repo\n',
});
process.env.BENCH_KEY = 'sk-bench';
const LOG = `${project.dir}/agent-times.log`;
/** A script that runs `agent` and logs when each `exec` call of it began and ended to `log`. */
function timedScript(file, agent, log) {
  writeFileSync(
    file,
    [
      '#!/bin/sh',
      // Only the eval calls: the health check asks for --version.
      `[ "$1" = exec ] || exec ${JSON.stringify(agent)} "$@"`,
      'began=$(date +%s%N)',
      `${JSON.stringify(agent)} "$@"`,
      'code=$?',
      `echo "$began $(date +%s%N)" >> ${JSON.stringify(log)}`,
      'exit $code',
      '',
    ].join('\n'),
  );
  chmodSync(file, 0o755);
}
timedScript(`${project.dir}/.agentv/timed-codex`, CODEX, LOG);
const TRUE = spawnSync('sh', ['-c', 'command -v true'], { encoding: 'utf8' }).stdout.trim();
const PROBE_LOG = `${project.dir}/probe-times.log`;
timedScript(`${project.dir}/.agentv/timed-true`, TRUE, PROBE_LOG);

/** The timing script's own cost per call outside what it logs (ms): median of `calls` runs. */
function scriptCost(calls = 15) {
  const costs = [];
  for (let call = 0; call < calls; call++) {
    rmSync(PROBE_LOG, { force: true });
    let started = performance.now();
    spawnSync(`${project.dir}/.agentv/timed-true`, ['exec']);
    const wrapped = performance.now() - started;
    started = performance.now();
    spawnSync(TRUE, ['exec']);
    const direct = performance.now() - started;
    const [began, ended] = readFileSync(PROBE_LOG, 'utf8').trim().split(' ').map(Number);
    costs.push(wrapped - (ended - began) / 1e6 - direct);
  }
  return middle(costs);
}
writeFileSync(
  `${project.dir}/.agentv/targets.yaml`,
  `targets:\n  - { name: codex, provider: codex, executable: ${JSON.stringify(`${project.dir}/.agentv/timed-codex`)}, base_url: ${JSON.stringify(baseUrl)}, api_key: "\${{ BENCH_KEY }}", model: gpt-5, max_retries: 0, workers: 1 }\n`,
);

/** Runs `agentv eval` on `file` (`count` cases); its wall time and the agent's, in ms. */
function timedRun(file, count) {
  rmSync(LOG, { force: true });
  const { ms } = evalAndVerify(project.dir, file, count, 1);
  const calls = readFileSync(LOG, 'utf8').trim().split('\n');
  if (calls.length !== count)
    throw new Error(`expected ${count} Codex calls, the log has ${calls.length}`);
  const agentMs = calls
    .map((line) => line.split(' ').map(Number))
    .reduce((sum, [began, ended]) => sum + (ended - began) / 1e6, 0);
  return { ms, agentMs };
}

try {
  const figures = await interleaved({
    agentv: () => {
      const one = timedRun('one', 1);
      const many = timedRun('many', N);
      const script = scriptCost();
      return {
        overhead: (many.ms - many.agentMs - (one.ms - one.agentMs)) / (N - 1) - script,
        agent: (many.agentMs - one.agentMs) / (N - 1),
        script,
      };
    },
  });
  // Not clamped: a negative figure means AgentV's cost is below what these runs can resolve
  // (its work overlapping the agent's, and the agent's own time varying from call to call).
  const overhead = figures.agentv.overhead;
  const agentPerCase = figures.agentv.agent;
  console.log(
    `per case: AgentV ${overhead.toFixed(1)} ms around Codex's own ${agentPerCase.toFixed(1)} ms (the timing script's own ${figures.agentv.script.toFixed(1)} ms taken off)${overhead < 0 ? "; below zero: within the noise of the agent's own time" : ''}`,
  );
  report('coding-agent overhead per case', overhead.toFixed(1), 'ms', '<= 50 ms', overhead <= 50, {
    agentPerCaseMs: agentPerCase,
    timingScriptMs: figures.agentv.script,
  });
  const share = (overhead / agentPerCase) * 100;
  report('coding-agent overhead / agent time', share.toFixed(2), '%', '<= 2%', share <= 2);
} finally {
  server.kill();
  if (process.env.BENCH_KEEP) console.log(project.dir, port);
  project.cleanup();
}
