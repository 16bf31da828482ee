import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { prepareProcessStarts } from '@agentv/core/internal';
import { callsEnterCgroups } from '@agentv/core/provider-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { createCliProvider } from './cli-provider.js';
import { makeRequest } from './test-support/make-request.js';
import {
  hostileValuesTest,
  plainWordsFallbackTests,
} from './test-support/plain-words-fallbacks.js';

// Where each call enters a cgroup of its own (root with cgroup v2, as in CI), a template of plain
// words still runs without a second shell: the shell that moves the call into its cgroup execs the
// program, which is then the child of the process that started it (the caller, or core's spawn
// helper once a run has started many), in its cgroup, with its values byte for byte.

const required = process.getuid?.() === 0 || process.env.CI !== undefined;

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'agentv-direct-cgroup-test-')));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function script(name: string, body: string, mode = 0o755): void {
  writeFileSync(join(scratch, name), body);
  chmodSync(join(scratch, name), mode);
}

// Its arguments, PWD, parent process and cgroup, one per line.
script(
  'whoami.sh',
  '#!/bin/sh\nprintf "%s\\n" "$@" "PWD=$PWD" "PPID=$PPID" "PARENT=$(basename "$(readlink /proc/$PPID/exe)")"; cat /proc/self/cgroup\n',
);

// Writes its arguments, NUL-ended, to the capture file.
const CAPTURE = join(scratch, 'argv.bin');
script('args.sh', `#!/bin/sh\nprintf '%s\\0' "$@" > "$AGENTV_TEST_CAPTURE"\necho done\n`);

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

describe.runIf(callsEnterCgroups() || required)(
  'a template of plain words, each call in its cgroup',
  () => {
    it('runs in its cgroup without a shell left waiting for it', async () => {
      expect(callsEnterCgroups()).toBe(true);
      const lines: string[] = [];
      const hostile = `$(touch ${join(scratch, 'INJECTED')}) 'a' "b" \\ *`;
      for (let call = 0; call < 3; call++) {
        const response = await provider('./whoami.sh --id={EVAL_ID} {PROMPT}', (line) =>
          lines.push(line),
        ).invoke(makeRequest({ question: hostile, evalCaseId: `case ${call}` }));
        const printed = (response.text ?? '').split('\n');
        expect(printed.slice(0, 3)).toEqual([`--id=case ${call}`, hostile, `PWD=${scratch}`]);
        // Its parent is what started it (this process, or the spawn helper after 16 processes:
        // both Node), not a shell that started it and waits for it.
        expect(printed[3]).toMatch(/^PPID=\d+$/);
        expect(printed[4]).toBe(`PARENT=${path.basename(process.execPath)}`);
        expect(response.text).toMatch(/\n0::\S*\/call-\d+$/m);
      }
      expect(() => readFileSync(join(scratch, 'INJECTED'))).toThrow();
      expect(lines).toContain('[cli:direct] case 0 attempt 1 plain words: run without a shell');
    });

    it('runs anything else through the shell in its cgroup, as before', async () => {
      const response = await provider('./whoami.sh {PROMPT} 2>/dev/null').invoke(makeRequest());
      const printed = (response.text ?? '').split('\n');
      expect(printed[3]).toMatch(/^PARENT=(sh|dash|bash)$/);
      expect(response.text).toMatch(/\n0::\S*\/call-\d+$/m);
    });

    hostileValuesTest(
      scratch,
      provider('./args.sh --id={EVAL_ID} {PROMPT} "{GUIDELINES}"'),
      () => readFileSync(CAPTURE, 'utf8').split('\0').slice(0, -1),
      // Every other call starts in a shell made ready beforehand (as `agentv eval`'s first).
      (run) => {
        if (run % 2 === 0) prepareProcessStarts();
      },
    );

    plainWordsFallbackTests(scratch, (template) => provider(template));
  },
);
