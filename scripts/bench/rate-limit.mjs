// Budget: 600 cases against a local service that allows R = 1200 requests a minute (a token
// bucket of 20 a second, holding at most 20) and answers 429 with `Retry-After` beyond it, through
// an `http` target with `requests_per_minute: 1200` and 16 workers: the run finishes within 1.15x
// of 600 / R minutes (30 s) with at most 5% of the requests refused. Every result is checked.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import path from 'node:path';
import { AGENTV, report, tempProject, verifyResults } from './support.mjs';

const CASES = 600;
const PER_MINUTE = 1200;
const PER_SECOND = PER_MINUTE / 60;

let tokens = PER_SECOND;
let refilled = performance.now();
let accepted = 0;
let refused = 0;
const server = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', () => {
    const now = performance.now();
    tokens = Math.min(PER_SECOND, tokens + ((now - refilled) / 1000) * PER_SECOND);
    refilled = now;
    if (tokens < 1) {
      refused++;
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      response.end('{"error":"rate limited"}');
      return;
    }
    tokens -= 1;
    accepted++;
    const { id } = JSON.parse(body);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ answer: `answer ${id}` }));
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/chat`;

const cases = Array.from(
  { length: CASES },
  (_, index) => `  - id: case-${index}
    input_messages: [{ role: user, content: "q${index}" }]
    evaluators: [{ name: echo, type: contains, value: "answer case-${index}" }]`,
).join('\n');
const project = tempProject({
  '.agentv/targets.yaml': `targets:
  - name: default
    provider: http
    url: ${url}
    body: { question: "{PROMPT}", id: "{EVAL_ID}" }
    response_path: answer
    requests_per_minute: ${PER_MINUTE}
    workers: 16
    max_retries: 5
`,
  'evals/rate.yaml': `evalcases:\n${cases}\n`,
});
try {
  const out = path.join(project.dir, 'out.jsonl');
  const started = performance.now();
  const code = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AGENTV, 'eval', 'evals', '--out', out], {
      cwd: project.dir,
      env: { ...process.env, CI: '1' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', resolve);
  });
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`agentv eval exited ${code}`);
  verifyResults(out, CASES, (id) => `answer ${id}`);
  const ideal = (CASES / PER_MINUTE) * 60;
  const ratio = seconds / ideal;
  const refusedShare = refused / (accepted + refused);
  console.log(
    `${CASES} cases in ${seconds.toFixed(1)} s (ideal ${ideal} s); ${refused} of ${accepted + refused} requests refused`,
  );
  const inTime = report(
    'rate-limited run / 600 / R minutes',
    ratio.toFixed(3),
    'x',
    '<= 1.15x',
    ratio <= 1.15,
    {
      seconds,
      idealSeconds: ideal,
    },
  );
  const fewRefused = report(
    'rate-limited run: requests refused',
    (refusedShare * 100).toFixed(2),
    '%',
    '<= 5%',
    refusedShare <= 0.05,
    { refused, accepted },
  );
  process.exitCode = inTime && fewRefused ? 0 : 1;
} finally {
  server.close();
  project.cleanup();
}
