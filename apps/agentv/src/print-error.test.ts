import { cp, mkdtemp, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ExitCode } from './exit-code.js';
import { printError } from './print-error.js';

// A provider package may resolve its own copy of @agentv/core; its errors must
// print like the app's own: one line plus the hint, no "unexpected error" stack.
type Core = typeof import('@agentv/core/provider-utils');

let copyDir: string;
let other: Core;

beforeAll(async () => {
  const coreDir = await realpath(
    fileURLToPath(new URL('../node_modules/@agentv/core/', import.meta.url)),
  );
  // Inside core's node_modules, so the copy resolves core's dependencies as installed.
  copyDir = await mkdtemp(path.join(coreDir, 'node_modules', '.agentv-app-copy-'));
  await cp(path.join(coreDir, 'dist'), path.join(copyDir, 'dist'), { recursive: true });
  other = await import(pathToFileURL(path.join(copyDir, 'dist', 'provider-utils.js')).href);
});

afterAll(async () => {
  if (copyDir) await rm(copyDir, { recursive: true, force: true });
});

afterEach(() => {
  vi.restoreAllMocks();
});

function printed(error: unknown): { code: number; text: string } {
  const lines: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  const code = printError(error, 'eval');
  vi.restoreAllMocks();
  return { code, text: lines.join('') };
}

describe('printError with errors from another copy of core', () => {
  it('prints an AgentV error as one line plus its hint', () => {
    const { code, text } = printed(
      new other.ProviderError('health check of target "agent" failed: connection refused', {
        hint: 'start the agent first',
      }),
    );
    expect(code).toBe(ExitCode.Error);
    expect(text).toBe(
      'agentv: health check of target "agent" failed: connection refused\n  hint: start the agent first\n',
    );
  });

  it('prints every issue of an invalid-input error', () => {
    const { code, text } = printed(
      new other.InvalidInputError([
        { severity: 'error', message: 'is missing', file: 'evals/a.yaml', line: 2, column: 3 },
        { severity: 'warning', message: 'unknown key "inptu" is ignored', file: 'evals/a.yaml' },
      ]),
    );
    expect(code).toBe(ExitCode.Error);
    expect(text).toBe(
      'error: evals/a.yaml:2:3: is missing\nwarning: evals/a.yaml: unknown key "inptu" is ignored\n',
    );
  });

  it('still treats a plain error as a bug, with its stack', () => {
    const { text } = printed(new Error('boom'));
    expect(text).toContain('unexpected error');
    expect(text).toContain('boom');
  });
});
