import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { processAlive } from '../support/processes.js';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

let project: Project | undefined;
let server: Server | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/**
 * Answers on stdout, or in the file named by its second argument: `endless` writes forever
 * (recording its pid first), `quotes` writes 300 MB of `"`, `long` 200,000 characters,
 * anything else a short answer.
 */
const AGENT = `
import { appendFileSync, openSync, writeSync } from 'node:fs';
const [prompt, out] = process.argv.slice(2);
const fd = out === undefined ? 1 : openSync(out, 'w');
const write = (text) => writeSync(fd, text);
if (prompt === 'endless') {
  appendFileSync('pids.log', process.pid + '\\n');
  const chunk = 'y'.repeat(65536);
  for (;;) write(chunk);
}
if (prompt === 'quotes') {
  const chunk = '"'.repeat(1 << 20);
  for (let i = 0; i < 300; i++) write(chunk);
} else if (prompt === 'long') {
  write('L'.repeat(200000));
} else {
  write('fine: ' + prompt);
}
`;

/** A batch runner: one reply line per request; the question \`huge\` gets a 70 KiB answer. */
const BATCH = `
import { readFileSync, writeFileSync } from 'node:fs';
const [input, output] = process.argv.slice(2);
const lines = readFileSync(input, 'utf8').split('\\n').filter(Boolean).map((line) => JSON.parse(line));
writeFileSync(output, lines.map(({ id, question }) =>
  JSON.stringify({ id, text: question === 'huge' ? 'h'.repeat(70 * 1024) : 'fine: ' + question }) + '\\n').join(''));
`;

/** A persistent agent: the question \`endless\` gets a reply line that never ends. */
const PERSISTENT = `
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
appendFileSync('workers.log', process.pid + '\\n');
for await (const line of createInterface({ input: process.stdin })) {
  const { id, question } = JSON.parse(line);
  if (question === 'endless') {
    const chunk = 'y'.repeat(65536);
    const more = () => { while (process.stdout.write(chunk)); };
    process.stdout.on('drain', more);
    more();
    continue;
  }
  console.log(JSON.stringify({ id, text: 'fine: ' + question }));
}
`;

const TARGETS = `
targets:
  - name: small
    provider: cli
    cwd: ..
    command_template: node agent.mjs {PROMPT}
    max_output_bytes: 64KiB
    max_retries: 2
  - name: small-file
    provider: cli
    cwd: ..
    command_template: node agent.mjs {PROMPT} {OUTPUT_FILE}
    max_output_bytes: 65536
    max_retries: 2
  - name: roomy
    provider: cli
    cwd: ..
    command_template: node agent.mjs {PROMPT}
    max_retries: 2
  - name: batch
    provider: cli
    cwd: ..
    provider_batching: true
    command_template: node batch.mjs {INPUT_FILE} {OUTPUT_FILE}
    max_output_bytes: 64KiB
    max_retries: 2
  - name: persistent
    provider: cli
    mode: persistent
    cwd: ..
    command_template: node persistent.mjs
    max_output_bytes: 64KiB
    max_retries: 2
  - name: http
    provider: http
    url: \${{ AGENT_URL }}
    response_path: answer
    max_output_bytes: 64KiB
    max_retries: 2
`;

function evalFile(ids: string[]): string {
  return `evalcases:\n${ids
    .map(
      (id) =>
        `  - id: ${id}\n    input_messages: [{ role: user, content: ${id} }]\n    evaluators: [{ type: contains, value: "fine" }]\n`,
    )
    .join('')}`;
}

async function setup(ids: string[]): Promise<Project> {
  project = await createProject({
    'agent.mjs': AGENT,
    'batch.mjs': BATCH,
    'persistent.mjs': PERSISTENT,
    '.agentv/targets.yaml': TARGETS,
    'evals/cases.yaml': evalFile(ids),
  });
  return project;
}

async function run(target: string, extra: string[] = [], env: Record<string, string> = {}) {
  const outcome = await runAgentv(
    ['eval', 'evals/cases.yaml', '--target', target, '--out', 'out.jsonl', ...extra],
    project!.dir,
    env,
  );
  const lines = parseJsonl(await readFile(project!.file('out.jsonl'), 'utf8'));
  return { ...outcome, byId: new Map(lines.map((line) => [line.eval_id as string, line])) };
}

async function pidsIn(file: string): Promise<number[]> {
  const text = await readFile(project!.file(file), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map(Number);
}

const HINT = /\(hint: make the agent write less, or raise max_output_bytes on the target/;

describe('max_output_bytes', () => {
  it('stops an endless writer on stdout once, errors its case without a retry, and leaves the other cases alone', async () => {
    await setup(['endless', 'other']);
    const { code, stderr, byId } = await run('small');
    expect(code).toBe(2);
    const endless = byId.get('endless')!;
    expect(endless).toMatchObject({ passed: false, attempts: 1 });
    expect(endless.error).toMatch(
      /^the agent's answer on stdout passed max_output_bytes \(64 KiB\): it had written [\d.]+ (KiB|MiB|GiB) when it was stopped/,
    );
    expect(endless.error).toMatch(HINT);
    expect(endless.error).not.toContain('/bin/sh');
    expect(endless.candidate_answer).toBe('');
    expect(byId.get('other')).toMatchObject({ passed: true, candidate_answer: 'fine: other' });
    const pids = await pidsIn('pids.log');
    expect(pids).toHaveLength(1);
    expect(processAlive(pids[0]!)).toBe(false);
    expect(stderr).not.toMatch(/bug in AgentV/);
  });

  it('stops an endless writer to {OUTPUT_FILE}', async () => {
    await setup(['endless', 'other']);
    const { byId } = await run('small-file');
    expect(byId.get('endless')).toMatchObject({ passed: false, attempts: 1 });
    expect(byId.get('endless')!.error).toMatch(
      /^the agent's answer in \{OUTPUT_FILE\} passed max_output_bytes \(64 KiB\): it had written .* when it was stopped/,
    );
    expect(byId.get('other')).toMatchObject({ passed: true });
  });

  it('stops 300 MB of `"` at the 16 MiB default, cleanly', async () => {
    await setup(['quotes', 'other']);
    const { code, stderr, byId } = await run('roomy');
    expect(code).toBe(2);
    expect(byId.get('quotes')).toMatchObject({ passed: false, attempts: 1 });
    expect(byId.get('quotes')!.error).toMatch(
      /^the agent's answer on stdout passed max_output_bytes \(16 MiB\)/,
    );
    expect(byId.get('other')).toMatchObject({ passed: true });
    expect(stderr).not.toMatch(/bug in AgentV|RangeError|Invalid string length/);
  });

  it('cuts a long answer in the HTML and JUnit reports with a marker, while the result line holds all of it', async () => {
    await setup(['long']);
    const { byId } = await run('roomy', ['--html', 'report.html', '--junit', 'junit.xml']);
    expect(byId.get('long')!.candidate_answer).toBe('L'.repeat(200000));
    const marker = '… [cut: 131 KiB more; the full answer is in the result file]';
    const html = await readFile(project!.file('report.html'), 'utf8');
    expect(html).toContain(`${'L'.repeat(65536)}\\n${marker}`);
    expect(html).not.toContain('L'.repeat(65537));
    const junit = await readFile(project!.file('junit.xml'), 'utf8');
    expect(junit).toContain(`${'L'.repeat(65536)}\n${marker}</system-out>`);
  });

  it('errors the cases of a batch whose record passes the limit', async () => {
    await setup(['huge', 'other']);
    const { byId } = await run('batch');
    for (const id of ['huge', 'other']) {
      expect(byId.get(id)).toMatchObject({ passed: false, attempts: 1 });
      expect(byId.get(id)!.error).toMatch(
        /^batch of 2 cases failed: batch output: line 1 of \{OUTPUT_FILE\} passed max_output_bytes \(64 KiB\)/,
      );
    }
  });

  it('stops a persistent worker whose reply line passes the limit; the next case gets a new worker', async () => {
    await setup(['endless', 'other']);
    const { byId } = await run('persistent', ['--workers', '1']);
    expect(byId.get('endless')).toMatchObject({ passed: false, attempts: 1 });
    expect(byId.get('endless')!.error).toMatch(
      /^\[cli:persistent#1\]: the response line for case "endless" passed max_output_bytes \(64 KiB\)/,
    );
    expect(byId.get('other')).toMatchObject({ passed: true, candidate_answer: 'fine: other' });
    const workers = await pidsIn('workers.log');
    expect(workers).toHaveLength(2);
    expect(workers.every((pid) => !processAlive(pid))).toBe(true);
  });

  it('aborts an HTTP body past the limit against a local server', async () => {
    await setup(['endless']);
    let requests = 0;
    server = createServer((_, response) => {
      requests++;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"answer": "');
      const chunk = 'y'.repeat(65536);
      const more = () => {
        while (response.write(chunk)) {}
      };
      response.on('drain', more);
      more();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/chat`;
    const { byId } = await run('http', [], { AGENT_URL: url });
    expect(byId.get('endless')).toMatchObject({ passed: false, attempts: 1 });
    expect(byId.get('endless')!.error).toMatch(
      // The URL came from a variable, so it is masked.
      /^http target "http": POST \*\*\*: the response body passed max_output_bytes \(64 KiB\) after [\d.]+ KiB; the request was aborted/,
    );
    expect(requests).toBe(1);
  });
});
