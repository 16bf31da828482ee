import { closeSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { ProviderError } from '@agentv/core/provider-utils';
import { describe, expect, it } from 'vitest';
import { runCommand } from './run-command.js';
import { catchError } from './test-support/catch-error.js';

/** This process's soft limit of open files, from /proc (Linux). */
function openFileLimit(): number {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('Max open files'));
  const soft = line?.split(/\s{2,}/)[1];
  return soft === undefined || soft === 'unlimited' ? Number.POSITIVE_INFINITY : Number(soft);
}

/** Opens /dev/null until the process may open no more files; returns the descriptors. */
function exhaustFileDescriptors(): number[] {
  const descriptors: number[] = [];
  try {
    for (;;) descriptors.push(openSync('/dev/null', 'r'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EMFILE') throw error;
  }
  return descriptors;
}

describe('runCommand start failures', () => {
  // A real spawn failure: with every file descriptor taken, no pipe can be made
  // for the child. Skipped where the limit is too high to fill quickly.
  it.runIf(process.platform === 'linux' && openFileLimit() <= 200_000)(
    'reports a transient spawn failure (EMFILE) as retryable, and the next attempt works',
    async () => {
      const descriptors = exhaustFileDescriptors();
      // Two free descriptors: enough for the output capture files, none left for
      // the spawn itself.
      for (const descriptor of descriptors.splice(0, 2)) closeSync(descriptor);
      // runCommand spawns before its first await, so the descriptors can be freed
      // right away and the test runner never runs short of them.
      const attempt = runCommand({ command: 'echo hi', cwd: tmpdir() });
      for (const descriptor of descriptors) closeSync(descriptor);
      const error = (await catchError(() => attempt)) as ProviderError;
      expect(error).toBeInstanceOf(ProviderError);
      expect(error.message).toBe(
        `could not start the command in ${tmpdir()}: spawn /bin/sh EMFILE`,
      );
      expect(error.retryable).toBe(true);
      expect(error.hint).toContain('lower --workers');

      const retried = await runCommand({ command: 'echo hi', cwd: tmpdir() });
      expect(retried).toMatchObject({ stdout: 'hi\n', exitCode: 0 });
    },
  );

  it('reports an environment the OS cannot take as not retryable', async () => {
    const error = (await catchError(() =>
      runCommand({ command: 'true', cwd: tmpdir(), env: { AGENTV_TEST_BAD: 'a\0b' } }),
    )) as ProviderError;
    expect(error.message).toMatch(/^could not start the command in /);
    expect(error.retryable).toBe(false);
  });
});
