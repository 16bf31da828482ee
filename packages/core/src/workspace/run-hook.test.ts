import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspaceManager } from './create-workspace-manager.js';
import { runHook } from './run-hook.js';
import { tempFolder, workspaceConfig, writeFiles } from './test-support/workspace-fixtures.js';
import { isWorkspaceCaseError, isWorkspaceSetupError } from './workspace-errors.js';

const cleanup: string[] = [];
afterEach(() => {
  for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = tempFolder('ws-hook');
  cleanup.push(dir);
  return dir;
}

const info = {
  evalId: 'fix-bug',
  evalFile: '/evals/bugs.eval.yaml',
  target: 'coder',
  repeat: 2,
  input: 'Fix the bug; say "done"',
  vars: { ticket: 42 },
};

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('runHook', () => {
  it('runs a list without a shell, with the case values in its items, the variables and the JSON on stdin', async () => {
    const workspace = folder();
    const failure = await runHook(
      {
        command: [
          'node',
          '-e',
          `const fs = require('fs');
           const stdin = fs.readFileSync(0, 'utf8');
           fs.writeFileSync('out.json', JSON.stringify({ argv: process.argv.slice(1), stdin: JSON.parse(stdin),
             env: ['AGENTV_WORKSPACE','AGENTV_RUN_ID','AGENTV_EVAL_ID','AGENTV_EVAL_FILE','AGENTV_TARGET','AGENTV_REPEAT','PROJECT_VAR'].map((n) => process.env[n]),
             cwd: process.cwd() }));`,
          '{{test_id}}',
          '--input={{ case_input }}',
          '{{case_metadata}}',
          '{{workspace_path}}/x',
          '{{eval_run_id}}',
        ],
      },
      { workspace, runId: 'run-7', env: { ...process.env, PROJECT_VAR: 'from-project' }, info },
    );
    expect(failure).toBeUndefined();
    const out = JSON.parse(readFileSync(join(workspace, 'out.json'), 'utf8'));
    expect(out.argv).toEqual([
      'fix-bug',
      '--input=Fix the bug; say "done"',
      '{"ticket":42}',
      `${workspace}/x`,
      'run-7',
    ]);
    expect(out.stdin).toEqual({
      workspace_path: workspace,
      test_id: 'fix-bug',
      eval_run_id: 'run-7',
      case_input: 'Fix the bug; say "done"',
      case_metadata: { ticket: 42 },
    });
    expect(out.env).toEqual([
      workspace,
      'run-7',
      'fix-bug',
      '/evals/bugs.eval.yaml',
      'coder',
      '2',
      'from-project',
    ]);
    expect(out.cwd).toBe(workspace);
  });

  it('runs a string through the shell in its cwd and reports the exit code and stderr', async () => {
    const workspace = folder();
    const cwd = folder();
    const failure = await runHook(
      {
        command: 'pwd > "$AGENTV_WORKSPACE/pwd.txt"; echo "npm ERR! missing script" >&2; exit 3',
        cwd,
      },
      { workspace, runId: 'r', env: process.env },
    );
    expect(failure).toEqual({ reason: 'exited with code 3', output: 'npm ERR! missing script' });
    expect(readFileSync(join(workspace, 'pwd.txt'), 'utf8').trim()).toBe(cwd);
  });

  it('kills a hook that hangs at its timeout with its whole process group, grandchildren included', async () => {
    const workspace = folder();
    const failure = await runHook(
      // Long enough for the shell to start and write the pid on a busy machine.
      { command: 'sleep 300 & echo $! > grandchild.pid; wait', timeoutMs: 3000 },
      { workspace, runId: 'r', env: process.env },
    );
    expect(failure?.reason).toBe('timed out after 3000 ms (stopped with its process group)');
    const grandchild = Number(readFileSync(join(workspace, 'grandchild.pid'), 'utf8'));
    const deadline = Date.now() + 10_000;
    while (isAlive(grandchild) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(isAlive(grandchild)).toBe(false);
  });
});

describe('hooks in the workspace lifecycle', () => {
  it('runs before_all once in the pristine workspace, so what it makes is in every case’s copy', async () => {
    const base = folder();
    const template = join(base, 'template');
    writeFiles(template, { 'package.json': '{}' });
    const manager = createWorkspaceManager({
      root: join(base, 'root'),
      env: process.env,
      runId: 'r',
    });
    const config = workspaceConfig(base, {
      template,
      mode: 'temp',
      hooks: {
        beforeAll: { command: 'echo installed >> deps.txt; echo run >> ../../../before-all.log' },
        beforeEach: { command: 'echo "$AGENTV_EVAL_ID" > case.txt' },
      },
    });
    const [a, b] = await Promise.all([
      manager.acquire(config, { ...info, evalId: 'a' }),
      manager.acquire(config, { ...info, evalId: 'b' }),
    ]);
    expect(readFileSync(join(a.path, 'deps.txt'), 'utf8')).toBe('installed\n');
    expect(readFileSync(join(b.path, 'deps.txt'), 'utf8')).toBe('installed\n');
    expect(readFileSync(join(a.path, 'case.txt'), 'utf8')).toBe('a\n');
    expect(readFileSync(join(b.path, 'case.txt'), 'utf8')).toBe('b\n');
    expect(readFileSync(join(base, 'root', 'before-all.log'), 'utf8')).toBe('run\n');
    // What before_each wrote is part of the baseline, not a change of the agent's.
    expect((await a.changes()).files).toEqual([]);
    await Promise.all([a.release({ keep: false }), b.release({ keep: false })]);
    await manager.close();
  });

  it('stops the run when before_all fails, with the hook and its stderr in the message', async () => {
    const base = folder();
    const manager = createWorkspaceManager({
      root: join(base, 'root'),
      env: process.env,
      runId: 'r',
    });
    const config = workspaceConfig(base, {
      hooks: { beforeAll: { command: 'echo "cannot reach registry" >&2; exit 1' } },
    });
    const error = await manager.acquire(config, info).catch((caught: unknown) => caught);
    expect(isWorkspaceSetupError(error)).toBe(true);
    expect((error as Error).message).toBe(
      'workspace hook before_all (echo "cannot reach registry" >&2; exit 1) exited with code 1:\ncannot reach registry',
    );
    await manager.close();
  });

  it('makes the case an error when before_each fails, and the next case still gets a clean workspace', async () => {
    const base = folder();
    const template = join(base, 'template');
    writeFiles(template, { 'a.txt': 'a' });
    const manager = createWorkspaceManager({
      root: join(base, 'root'),
      env: process.env,
      runId: 'r',
    });
    const config = workspaceConfig(base, {
      template,
      hooks: {
        beforeEach: { command: 'echo leftover > left.txt; [ "$AGENTV_EVAL_ID" != bad ] || exit 4' },
      },
    });
    const error = await manager
      .acquire(config, { ...info, evalId: 'bad' })
      .catch((caught: unknown) => caught);
    expect(isWorkspaceCaseError(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^workspace hook before_each \(.*\) exited with code 4$/,
    );
    const next = await manager.acquire(config, { ...info, evalId: 'good' });
    expect((await next.changes()).files).toEqual([]);
    await next.release({ keep: false });
    await manager.close();
  });

  it('reports failing after_each and after_all hooks as warnings', async () => {
    const base = folder();
    const logs: string[] = [];
    const manager = createWorkspaceManager({
      root: join(base, 'root'),
      env: process.env,
      runId: 'r',
      onLog: (message) => logs.push(message),
    });
    const config = workspaceConfig(base, {
      hooks: {
        afterEach: { command: ['sh', '-c', 'echo "after {{test_id}}" >&2; exit 2'] },
        afterAll: { command: 'exit 5' },
      },
    });
    const lease = await manager.acquire(config, info);
    await lease.release({ keep: false });
    await manager.close();
    expect(logs).toEqual([
      'warning: workspace hook after_each (sh -c echo "after {{test_id}}" >&2; exit 2) exited with code 2:\nafter fix-bug',
      'warning: workspace hook after_all (exit 5) exited with code 5',
    ]);
  });
});
