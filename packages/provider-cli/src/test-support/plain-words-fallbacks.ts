import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderError } from '@agentv/core/provider-utils';
import fc from 'fast-check';
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

/**
 * The property every way of running a template of plain words must hold: 300 runs of generated
 * hostile prompt, guidelines and id (shell syntax, binary text) reach the program byte for byte,
 * and none of them runs anything. `direct` runs `./args.sh --id={EVAL_ID} {PROMPT} "{GUIDELINES}"`
 * (or the like) in `dir`, whose program records its first three arguments for `captured`;
 * `beforeRun` is called before each run.
 */
export function hostileValuesTest(
  dir: string,
  direct: ReturnType<typeof createCliProvider>,
  captured: () => string[],
  beforeRun: (run: number) => void = () => {},
): void {
  it('hands each value to the program byte for byte, and no value runs', async () => {
    const marker = join(dir, 'INJECTED');
    const hostile = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom(
        `$(touch ${marker})`,
        `\`touch ${marker}\``,
        `'; touch ${marker}; '`,
        `"; touch ${marker}; "`,
        `\ntouch ${marker}\n`,
        `| touch ${marker} &`,
        '*',
        '~',
        '-n',
        '',
      ),
    );
    const noNul = hostile.filter((value) => !value.includes('\0'));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(noNul, noNul, noNul, async (prompt, guidelines, id) => {
        beforeRun(run++);
        const response = await direct.invoke(
          makeRequest({ question: prompt, guidelines, evalCaseId: id }),
        );
        expect(response.text?.trim()).toBe('done');
        expect(captured()).toEqual([`--id=${id}`, prompt, guidelines]);
      }),
      { numRuns: 300 },
    );
    expect(() => readFileSync(marker)).toThrow();
  }, 300_000);
}
