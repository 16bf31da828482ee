import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAgentCli } from '../../../../packages/provider-coding-agents/src/test-support/agent-cli.js';
import {
  type ResponsesServer,
  startResponsesServer,
} from '../../../../packages/provider-coding-agents/src/test-support/responses-server.js';
import { codexSolution } from '../support/codex-solution.js';
import { agentvContainers, engineEnv, noEngine } from '../support/docker.js';
import { NODE_IMAGE } from '../support/docker-setup.js';
import { parseJsonl, runAgentv } from '../support/project.js';

// The codex provider with workspace.docker: the real Codex CLI runs inside the case's container
// (`--network none`), in /workspace, with its config home in the exchange folder, and the
// `command` graders run the repository's tests in the same container.
//
// The container has no network, so the scripted model on this machine is reached through a unix
// socket in a mounted folder: a relay in the container listens on 127.0.0.1:8787 (Codex's
// base_url) and forwards to the socket, where a relay of this test forwards to the server. Real
// users give the container a network instead (`network: bridge`).

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const EXAMPLE = path.join(ROOT, 'examples/coding-agents');
/** What the first shell command prints in a container only (the command itself does not hold it). */
const MARKER = 'INSIDE-A-42';

/** The container's end: listens on 127.0.0.1:<port>, then runs the program; exits with it. */
const RELAY = `
const net = require('node:net');
const { spawn } = require('node:child_process');
const [socket, port, program, ...args] = process.argv.slice(2);
const server = net.createServer((client) => {
  const upstream = net.connect(socket);
  client.pipe(upstream).pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
});
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(program, args, { stdio: 'inherit' });
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code) => process.exit(code ?? 1));
});
`;

const solve = codexSolution('test -e /.dockerenv && echo INSIDE-A-$((6 * 7))');

let codex: string | undefined;
let scratch: string;
let model: ResponsesServer | undefined;
let bridge: Server | undefined;

beforeAll(async () => {
  if (noEngine) return;
  codex = await ensureAgentCli('codex');
  scratch = await mkdtemp(path.join(tmpdir(), 'agentv-codex-docker-'));
}, 600_000);

afterAll(async () => {
  bridge?.close();
  await model?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The scripted model, served on `<dir>/model.sock` for containers that mount `dir`. */
async function modelOnSocket(dir: string): Promise<ResponsesServer> {
  const server = await startResponsesServer(solve);
  const { port } = new URL(server.baseUrl);
  bridge = createServer((client) => {
    const upstream = connect(Number(port), '127.0.0.1');
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => bridge!.listen(path.join(dir, 'model.sock'), resolve));
  await chmod(path.join(dir, 'model.sock'), 0o777);
  return server;
}

/**
 * A copy of the coding-agents example whose cases run in containers of the Node test image, with
 * the Codex binary mounted at /opt/codex, the model's socket at /model, and the codex target's
 * `executable` as given.
 */
async function exampleInContainers(name: string, executable: string): Promise<string> {
  const codexPath = codex!;
  const dir = path.join(scratch, name);
  await cp(EXAMPLE, dir, { recursive: true });
  const socketDir = path.join(scratch, 'socket');
  if (model === undefined) {
    await mkdir(socketDir);
    model = await modelOnSocket(socketDir);
  }
  // The Codex package's native binary (static) and its helpers, mounted read-only.
  const vendor = path.join(
    path.dirname(path.dirname(codexPath)),
    '@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl',
  );
  // The mounts name folders outside the project: allowed explicitly.
  await writeFile(
    path.join(dir, '.agentv/config.yaml'),
    `allowed_file_roots: [${JSON.stringify(vendor)}, ${JSON.stringify(socketDir)}]\n`,
  );
  await writeFile(path.join(dir, 'evals/relay.cjs'), RELAY);
  await writeFile(
    path.join(dir, 'evals/codex-in-container'),
    '#!/bin/sh\nexport PATH="/opt/codex/codex-path:$PATH"\nexec node /evals/relay.cjs /model/model.sock 8787 /opt/codex/bin/codex "$@"\n',
  );
  await chmod(path.join(dir, 'evals/codex-in-container'), 0o755);
  const tasks = await readFile(path.join(dir, 'evals/tasks.yaml'), 'utf8');
  await writeFile(
    path.join(dir, 'evals/tasks.yaml'),
    tasks.replace(
      '  mode: temp\n',
      `  mode: temp\n  docker:\n    image: ${NODE_IMAGE}\n    mounts:\n      - { source: ., target: /evals, read_only: true }\n      - { source: ${JSON.stringify(vendor)}, target: /opt/codex, read_only: true }\n      - { source: ${JSON.stringify(socketDir)}, target: /model }\n`,
    ),
  );
  await writeFile(
    path.join(dir, '.agentv/targets.yaml'),
    [
      'targets:',
      '  - name: codex',
      '    provider: codex',
      `    executable: ${executable}`,
      '    base_url: http://127.0.0.1:8787/v1',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${{ VAR }} is targets-file syntax
      "    api_key: '${{ SCRIPTED_KEY }}'",
      '    model: gpt-5',
      '    timeout_seconds: 120',
      '',
    ].join('\n'),
  );
  return dir;
}

async function evalIn(dir: string) {
  const out = path.join(dir, 'out.jsonl');
  const run = await runAgentv(
    ['eval', 'evals', '--out', out, '--include-trace', '--workers', '2'],
    dir,
    { ...engineEnv(), SCRIPTED_KEY: 'sk-scripted-secret-5678' },
  );
  const byId = Object.fromEntries(
    parseJsonl(await readFile(out, 'utf8').catch(() => '')).map((line) => [line.eval_id, line]),
  );
  return { ...run, byId };
}

// A real agent CLI per case: seconds each on a busy 2-core machine.
describe.skipIf(noEngine)(
  'provider: codex in a workspace.docker container',

  { timeout: 300_000 },
  () => {
    it('does the three coding tasks inside the container, graded there by the tests', async (context) => {
      if (!codex) return context.skip();
      const dir = await exampleInContainers('example', '/evals/codex-in-container');
      const run = await evalIn(dir);
      const { byId } = run;
      expect(run.stderr).not.toContain('sk-scripted-secret-5678');
      expect(run.code, run.stderr).toBe(0);
      // network: none is the default, so validate and eval say how the agent reaches its model.
      expect(run.stderr).toContain('network: none');
      for (const id of ['fix-slugify', 'implement-word-count', 'create-capitalize']) {
        expect(byId[id], id).toMatchObject({ passed: true, score: 1 });
        expect(byId[id].usage.input_tokens).toBeGreaterThan(0);
      }
      const names = (id: string) =>
        byId[id].trace
          .filter((event: { type: string }) => event.type === 'tool_call')
          .map((event: { name: string }) => event.name);
      expect(names('fix-slugify')).toEqual(['shell', 'shell']);
      // The agent's shell ran in the container: its output went back to the model.
      const followUp = model!.requests.find((request) =>
        JSON.stringify(request.body).includes(MARKER),
      );
      expect(followUp, 'the shell output of the first command').toBeDefined();
      // The container of each case is gone when the run ends.
      expect(agentvContainers({ runId: byId['fix-slugify'].run.id })).toEqual([]);
    });

    it('fails each case naming the image when the agent is not in it', async (context) => {
      if (!codex) return context.skip();
      const dir = await exampleInContainers('missing', '/opt/nothing/codex');
      const { code, stderr, byId } = await evalIn(dir);
      expect(code, stderr).not.toBe(0);
      for (const id of ['fix-slugify', 'implement-word-count', 'create-capitalize']) {
        expect(byId[id].error, id).toContain(
          'Codex is not installed in the sandbox\'s image: "/opt/nothing/codex" was not found there',
        );
      }
    });
  },
);
