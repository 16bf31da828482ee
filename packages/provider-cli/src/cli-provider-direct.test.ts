import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callsEnterCgroups } from '@agentv/core/provider-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { createCliProvider } from './cli-provider.js';
import { makeRequest } from './test-support/make-request.js';
import {
  hostileValuesTest,
  plainWordsFallbackTests,
} from './test-support/plain-words-fallbacks.js';

// Templates of plain words run without /bin/sh: the values must still arrive byte for byte,
// nothing in them may run, and what users see when the program cannot run stays the shell's.

// Without a cgroup per call (macOS, or where cgroups cannot be used): the program is spawned
// itself. Calls that enter one are in cli-provider-direct-cgroup.test.ts.
process.env.AGENTV_CGROUPS = '0';

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'agentv-direct-test-')));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const CAPTURE = join(scratch, 'argv.bin');

function script(name: string, body: string, mode = 0o755): void {
  writeFileSync(join(scratch, name), body);
  chmodSync(join(scratch, name), mode);
}

// Writes its arguments and its PWD, NUL-ended, to the capture file.
script(
  'args.sh',
  `#!/bin/sh\nprintf '%s\\0' "$@" "PWD=$PWD" > "$AGENTV_TEST_CAPTURE"\necho done\n`,
);

function provider(commandTemplate: string, log?: (line: string) => void) {
  return createCliProvider(
    {
      commandTemplate,
      filesFormat: '{path}',
      attachmentsFormat: '{path}',
      cwd: scratch,
      env: { AGENTV_TEST_CAPTURE: CAPTURE },
      verbose: !!log,
    },
    { targetName: 'direct', killGraceMs: 200, ...(log ? { log } : {}) },
  );
}

function captured(): string[] {
  return readFileSync(CAPTURE, 'utf8').split('\0').slice(0, -1);
}

describe('a template of plain words', () => {
  const direct = provider('./args.sh --id={EVAL_ID} {PROMPT} "{GUIDELINES}"');

  hostileValuesTest(scratch, direct, () => captured().slice(0, 3));

  it('runs without a shell, with PWD naming its working directory as the shell exports it', async () => {
    const lines: string[] = [];
    await provider('./args.sh {PROMPT}', (line) => lines.push(line)).invoke(makeRequest());
    expect(captured()).toContain(`PWD=${scratch}`);
    expect(callsEnterCgroups()).toBe(false);
    expect(lines).toContain('[cli:direct] case-1 attempt 1 plain words: run without a shell');
    lines.length = 0;
    await provider('./args.sh {PROMPT} 2>/dev/null', (line) => lines.push(line)).invoke(
      makeRequest(),
    );
    expect(lines.join('\n')).not.toContain('without a shell');
  });

  plainWordsFallbackTests(scratch, (template) => provider(template));
});
