import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderError } from '@agentv/core/provider-utils';
import { expect, it } from 'vitest';
import type { createCliProvider } from '../cli-provider.js';
import { catchError } from './catch-error.js';
import { makeRequest } from './make-request.js';

/**
 * The tests every way of running a template of plain words must pass: what users see when the
 * program cannot run stays the shell's, and a script without `#!` runs as the shell runs it.
 * `provider` makes a provider whose working directory is `dir`.
 */
export function plainWordsFallbackTests(
  dir: string,
  provider: (commandTemplate: string) => ReturnType<typeof createCliProvider>,
): void {
  const script = (name: string, body: string, mode: number) => {
    writeFileSync(join(dir, name), body);
    chmodSync(join(dir, name), mode);
  };

  it('fails like the shell did for a program that is not executable or not there', async () => {
    script('not-executable.sh', '#!/bin/sh\necho hi\n', 0o644);
    for (const program of ['./not-executable.sh', './missing-agent']) {
      // The same command with a `;` goes through /bin/sh: what users saw before.
      const viaShell = await catchError(() =>
        provider(`${program} {PROMPT};`).invoke(makeRequest()),
      );
      const plain = await catchError(() => provider(`${program} {PROMPT}`).invoke(makeRequest()));
      expect(viaShell).toBeInstanceOf(ProviderError);
      expect(plain).toBeInstanceOf(ProviderError);
      expect((plain as ProviderError).message).toBe((viaShell as ProviderError).message);
      expect((plain as ProviderError).message).toMatch(/exited with code 12[67]/);
    }
  });

  it('runs a script without #! through /bin/sh, as the shell does', async () => {
    script('no-shebang.sh', 'printf "%s" "no shebang: $1"\n', 0o755);
    const response = await provider('./no-shebang.sh {PROMPT}').invoke(
      makeRequest({ question: 'a b' }),
    );
    expect(response.text).toBe('no shebang: a b');
  });
}
