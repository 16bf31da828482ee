import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Provider } from '@agentv/core/provider-utils';
import { shellQuote } from '@agentv/core/provider-utils';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCliProvider } from './cli-provider.js';
import type { CliProviderSettings } from './cli-provider-settings.js';
import { catchError } from './test-support/catch-error.js';
import { makeRequest } from './test-support/make-request.js';

const scratch = mkdtempSync(join(tmpdir(), 'agentv-cli-workspace-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// Prints where it runs, its arguments and AGENTV_WORKSPACE, and writes a file in its cwd.
const SCRIPT = join(scratch, 'where.mjs');
writeFileSync(
  SCRIPT,
  `import { writeFileSync } from 'node:fs';
writeFileSync('touched.txt', 'x');
process.stdout.write(JSON.stringify({ cwd: process.cwd(), argv: process.argv.slice(2), workspace: process.env.AGENTV_WORKSPACE ?? null }));
`,
);
const where = `${shellQuote(process.execPath)} ${shellQuote(SCRIPT)}`;

let open: Provider[] = [];
afterEach(async () => {
  await Promise.all(open.map((provider) => provider.close?.()));
  open = [];
});

function provider(commandTemplate: string, settings: Partial<CliProviderSettings> = {}) {
  const created = createCliProvider(
    {
      commandTemplate,
      filesFormat: '{path}',
      attachmentsFormat: '{path}',
      cwd: '.',
      env: {},
      verbose: false,
      ...settings,
    },
    { targetName: 'coder', killGraceMs: 200, env: { PATH: process.env.PATH ?? '' } },
  );
  open.push(created);
  return created;
}

let count = 0;
/** A workspace folder whose name a shell would read as code if it were ever parsed. */
function workspace(): string {
  const dir = join(scratch, `ws ${++count} $(touch PWNED) 'q"`);
  mkdirSync(join(dir, 'app'), { recursive: true });
  return dir;
}

const evalDir = join(scratch, 'evals');
mkdirSync(evalDir, { recursive: true });

describe('cli provider in a workspace', () => {
  it('names a script beside the eval file with {EVAL_DIR}, while the agent works in the workspace', async () => {
    const dir = workspace();
    const agentDir = join(scratch, `agent $(touch PWNED) 'q`);
    mkdirSync(agentDir, { recursive: true });
    writeFileSync(join(agentDir, 'agent.mjs'), readFileSync(SCRIPT));
    const quotedEvalDir = join(scratch, `evals $(touch PWNED)`);
    mkdirSync(quotedEvalDir, { recursive: true });
    const command = `${shellQuote(process.execPath)} {EVAL_DIR}/../${shellQuote(`agent $(touch PWNED) 'q`)}/agent.mjs`;
    const response = await provider(command).invoke(
      makeRequest({ workspace: dir, evalDir: quotedEvalDir }),
    );
    expect(JSON.parse(response.text)).toMatchObject({ cwd: dir, workspace: dir });
    expect(existsSync(join(dir, 'touched.txt'))).toBe(true);
    expect(existsSync(join(scratch, 'PWNED'))).toBe(false);
  });

  it('runs the agent in the workspace, with {WORKSPACE} and AGENTV_WORKSPACE naming it', async () => {
    const dir = workspace();
    const response = await provider(`${where} {WORKSPACE}`).invoke(
      makeRequest({ workspace: dir, evalDir }),
    );
    expect(JSON.parse(response.text)).toEqual({ cwd: dir, argv: [dir], workspace: dir });
    expect(existsSync(join(dir, 'touched.txt'))).toBe(true);
    expect(existsSync(join(evalDir, 'touched.txt'))).toBe(false);
    expect(existsSync(join(scratch, 'PWNED'))).toBe(false);
  });

  it('resolves a relative target cwd inside the workspace and keeps an absolute one', async () => {
    const dir = workspace();
    const relative = await provider(where, { cwd: 'app' }).invoke(
      makeRequest({ workspace: dir, evalDir }),
    );
    expect(JSON.parse(relative.text).cwd).toBe(join(dir, 'app'));
    const elsewhere = mkdtempSync(join(scratch, 'abs-'));
    const absolute = await provider(where, { cwd: elsewhere }).invoke(
      makeRequest({ workspace: dir, evalDir }),
    );
    expect(JSON.parse(absolute.text)).toMatchObject({ cwd: elsewhere, workspace: dir });
  });

  it('gives each case its own workspace as cwd, cases of one eval file too', async () => {
    const agent = provider(where);
    const [first, second] = [workspace(), workspace()];
    const a = await agent.invoke(makeRequest({ evalCaseId: 'a', workspace: first, evalDir }));
    const b = await agent.invoke(makeRequest({ evalCaseId: 'b', workspace: second, evalDir }));
    const c = await agent.invoke(makeRequest({ evalCaseId: 'c', evalDir }));
    expect(JSON.parse(a.text).cwd).toBe(first);
    expect(JSON.parse(b.text).cwd).toBe(second);
    expect(JSON.parse(c.text)).toEqual({ cwd: evalDir, argv: [], workspace: null });
  });

  it('refuses {WORKSPACE} for a case without a workspace, saying how to give it one', async () => {
    const agent = provider(`${where} {WORKSPACE}`);
    const error = (await catchError(() => agent.invoke(makeRequest()))) as Error;
    expect(error.message).toBe('{WORKSPACE} has no value: the case has no workspace');
    expect((error as { hint?: string }).hint).toContain('workspace: block');
  });

  it('never passes on an AGENTV_WORKSPACE of the environment AgentV runs in', async () => {
    const agent = createCliProvider(
      {
        commandTemplate: where,
        filesFormat: '{path}',
        attachmentsFormat: '{path}',
        cwd: '.',
        env: {},
        verbose: false,
      },
      { targetName: 'coder', env: { PATH: process.env.PATH ?? '', AGENTV_WORKSPACE: '/outer' } },
    );
    const response = await agent.invoke(makeRequest({ evalDir }));
    expect(JSON.parse(response.text).workspace).toBeNull();
  });

  it('names the workspace in {INPUT_FILE} and in a batch bundle', async () => {
    const dir = workspace();
    const single = await provider(
      `${shellQuote(process.execPath)} -e 'process.stdout.write(require("fs").readFileSync(process.argv[1], "utf8"))' {INPUT_FILE}`,
    ).invoke(makeRequest({ workspace: dir, evalDir }));
    expect(JSON.parse(single.text).workspace).toBe(dir);

    const batchScript = join(scratch, 'batch.mjs');
    writeFileSync(
      batchScript,
      `import { readFileSync, writeFileSync } from 'node:fs';
const [input, output] = process.argv.slice(2);
const lines = readFileSync(input, 'utf8').trim().split('\\n').map((line) => JSON.parse(line));
writeFileSync(output, lines.map((r) => JSON.stringify({ id: r.id, text: r.workspace + '|' + process.cwd() + '|' + process.env.AGENTV_WORKSPACE })).join('\\n'));
`,
    );
    const batch = provider(
      `${shellQuote(process.execPath)} ${shellQuote(batchScript)} {INPUT_FILE} {OUTPUT_FILE}`,
    );
    const responses = await batch.invokeBatch!([
      makeRequest({ evalCaseId: 'one', workspace: dir, evalDir }),
      makeRequest({ evalCaseId: 'two', workspace: dir, evalDir }),
    ]);
    expect(responses.map((response) => response.text)).toEqual([
      `${dir}|${dir}|${dir}`,
      `${dir}|${dir}|${dir}`,
    ]);
  });
});

describe('persistent cli provider in a workspace', () => {
  it('sends the workspace in the request line and keeps one process across workspaces', async () => {
    const log = join(scratch, 'persistent.log');
    writeFileSync(log, '');
    // An agent that answers with the workspace its request names and the pid that answered.
    const echoScript = join(scratch, 'persistent-workspace.mjs');
    writeFileSync(
      echoScript,
      `import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
appendFileSync(${JSON.stringify(log)}, 'start\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const request = JSON.parse(line);
  process.stdout.write(JSON.stringify({ id: request.id, text: JSON.stringify({ workspace: request.workspace, pid: process.pid }) }) + '\\n');
});
`,
    );
    const agent = provider(`${shellQuote(process.execPath)} ${shellQuote(echoScript)}`, {
      mode: 'persistent',
    });
    const [first, second] = [workspace(), workspace()];
    const a = JSON.parse(
      (await agent.invoke(makeRequest({ evalCaseId: 'a', workspace: first, evalDir }))).text,
    );
    const b = JSON.parse(
      (await agent.invoke(makeRequest({ evalCaseId: 'b', workspace: second, evalDir }))).text,
    );
    expect(a.workspace).toBe(first);
    expect(b.workspace).toBe(second);
    expect(b.pid).toBe(a.pid);
    expect(readFileSync(log, 'utf8')).toBe('start\n');
  });
});
