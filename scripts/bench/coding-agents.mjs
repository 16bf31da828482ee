// Budget: AgentV's own cost per case around a coding agent (its workspace, config home, stream
// parsing and transcript) is <= 50 ms and <= 2% of the agent's own wall time, on a scripted task.
//
// The agent is the real Codex CLI (the pinned one the tests install into
// node_modules/.cache/agentv-agents/, or $AGENTV_AGENT_CACHE) against a scripted OpenAI Responses
// server on 127.0.0.1: one shell command, then an answer. AgentV's cost per case is the marginal
// time of `agentv eval` per case (N cases minus 1 case, over N - 1, one worker) less the marginal
// time of running the same Codex call by hand per case (a copy of the workspace, a config home
// with the same config.toml, `codex exec --json`), medians of interleaved rounds. Without the
// installed CLI the figures are reported as skipped, not failed.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { evalAndVerify, interleaved, report, tempProject } from './support.mjs';

const N = 8;
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
  '.agentv/targets.yaml': `targets:\n  - { name: codex, provider: codex, executable: ${JSON.stringify(CODEX)}, base_url: ${JSON.stringify(baseUrl)}, api_key: "\${{ BENCH_KEY }}", model: gpt-5, max_retries: 0, workers: 1 }\n`,
  'evals/one.yaml': evalFile(1),
  'evals/many.yaml': evalFile(N),
  'repo/src/index.js': 'export const x = 1;\n',
  'repo/README.md': '# repo\n',
});
process.env.BENCH_KEY = 'sk-bench';

/** One Codex call as AgentV makes it, by hand: a copy of the repo, a config home, the CLI. */
function bareCall(scratch, index) {
  const work = path.join(scratch, `work-${index}`);
  cpSync(path.join(project.dir, 'repo'), work, { recursive: true });
  const home = path.join(scratch, `home-${index}`);
  mkdirSync(path.join(home, 'codex'), { recursive: true });
  writeFileSync(
    path.join(home, 'codex/config.toml'),
    `model = "gpt-5"\nmodel_provider = "agentv"\napproval_policy = "never"\nsandbox_mode = "danger-full-access"\n[model_providers.agentv]\nname = "x"\nbase_url = "${baseUrl}"\nenv_key = "K"\nwire_api = "responses"\nrequest_max_retries = 0\nstream_max_retries = 0\n`,
  );
  return new Promise((resolve, reject) => {
    const child = spawn(
      CODEX,
      ['exec', '--json', '--skip-git-repo-check', '-C', work, '-m', 'gpt-5', '-'],
      {
        env: {
          PATH: process.env.PATH,
          HOME: home,
          TMPDIR: home,
          CODEX_HOME: path.join(home, 'codex'),
          K: 'sk-bench',
        },
        stdio: ['pipe', 'pipe', 'ignore'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stdin.end(`case-${index}`);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 && out.includes(`answer case-${index}`)
        ? resolve()
        : reject(new Error(`codex exited ${code}`)),
    );
  });
}

async function bare(count) {
  const scratch = mkdtempSync(path.join(tmpdir(), 'agentv-bench-codex-'));
  try {
    const started = performance.now();
    for (let index = 0; index < count; index++) await bareCall(scratch, index);
    return performance.now() - started;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

try {
  const figures = await interleaved({
    agentv: () => ({
      one: evalAndVerify(project.dir, 'one', 1, 1).ms,
      many: evalAndVerify(project.dir, 'many', N, 1).ms,
    }),
    bare: async () => ({ one: await bare(1), many: await bare(N) }),
  });
  const agentvPerCase = (figures.agentv.many - figures.agentv.one) / (N - 1);
  const barePerCase = (figures.bare.many - figures.bare.one) / (N - 1);
  const overhead = Math.max(0, agentvPerCase - barePerCase);
  console.log(
    `per case: agentv ${agentvPerCase.toFixed(1)} ms, Codex by hand ${barePerCase.toFixed(1)} ms`,
  );
  report('coding-agent overhead per case', overhead.toFixed(1), 'ms', '<= 50 ms', overhead <= 50, {
    agentvPerCaseMs: agentvPerCase,
    barePerCaseMs: barePerCase,
  });
  const share = (overhead / barePerCase) * 100;
  report('coding-agent overhead / agent time', share.toFixed(2), '%', '<= 2%', share <= 2);
} finally {
  server.kill();
  if (process.env.BENCH_KEEP) console.log(project.dir, port);
  project.cleanup();
}
