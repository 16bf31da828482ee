import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execChild } from './exec-child.js';

const dir = mkdtempSync(join(tmpdir(), 'agentv-exec-child-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function program(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `#!/bin/sh\necho ${text}\n`);
  chmodSync(path, 0o755);
}

/** Runs `file` in `dir` with stdout on a pipe and returns what it printed. */
async function output(file: string, args: string[], env: Record<string, string | undefined>) {
  const child = execChild(file, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'ignore'] });
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  await new Promise((resolve, reject) => child.on('error', reject).on('close', resolve));
  return stdout.trim();
}

describe('execChild', () => {
  it('runs the program the given PATH names, not one in node_modules/.bin', async () => {
    program(join(dir, 'node_modules', '.bin', 'agentv-probe'), 'node_modules');
    program(join(dir, 'bin', 'agentv-probe'), 'path');
    expect(await output('agentv-probe', [], { PATH: join(dir, 'bin') })).toBe('path');
  });

  it('gives the child the given environment and nothing of process.env', async () => {
    process.env.AGENTV_TEST_LIVE = 'live';
    try {
      const env = { PATH: '/usr/bin:/bin', AGENTV_TEST_GIVEN: 'given' };
      const script = 'echo "[$AGENTV_TEST_LIVE][$AGENTV_TEST_GIVEN][$PATH]"';
      expect(await output('/bin/sh', ['-c', script], env)).toBe('[][given][/usr/bin:/bin]');
    } finally {
      delete process.env.AGENTV_TEST_LIVE;
    }
  });

  it('passes inherited variables of the given environment, as spawn does', async () => {
    const env: Record<string, string> = Object.create({ PATH: '/usr/bin:/bin', BASE: 'base' });
    env.CALL = 'call';
    expect(await output('/bin/sh', ['-c', 'echo "$BASE $CALL"'], env)).toBe('base call');
  });
});
