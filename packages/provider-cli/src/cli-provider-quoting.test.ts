import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ProviderError } from '@agentv/core/provider-utils';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createCliProvider } from './cli-provider.js';
import { MAX_ARGUMENT_BYTES } from './render-command-template.js';
import { catchError } from './test-support/catch-error.js';
import { makeRequest } from './test-support/make-request.js';

// The quoting proof through the provider: random hostile strings go through a real
// `cli` target into a real program, which must receive each one byte for byte while
// no injected command ever runs. Each run passes about ten strings to one process.
// (`render-command-template-injection.test.ts` covers every template context.)

const RUNS = Math.max(2000, Number(process.env.AGENTV_QUOTING_RUNS ?? 0));

const scratch = mkdtempSync(join(tmpdir(), 'agentv-quoting-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Created only if some value escapes its quotes and runs as a command. */
const MARKER = join(scratch, 'INJECTED');
const CAPTURE = join(scratch, 'argv.bin');

// The coreutils binary rather than the shell builtin, so the values really cross
// an execve() into another program. `%s\0` prints each argument raw, NUL-ended.
const PRINTF = existsSync('/usr/bin/printf') ? '/usr/bin/printf' : '/bin/printf';
const TEMPLATE = `${PRINTF} '%s\\0' {PROMPT} {EVAL_ID} {GUIDELINES} {ATTEMPT} {FILES} -- {ATTACHMENTS} > "$AGENTV_TEST_CAPTURE"; echo done`;
const ATTACHMENTS_FORMAT = '--attach={path}:{basename}';

const provider = createCliProvider(
  {
    commandTemplate: TEMPLATE,
    filesFormat: '{path}',
    attachmentsFormat: ATTACHMENTS_FORMAT,
    cwd: scratch,
    env: { AGENTV_TEST_CAPTURE: CAPTURE },
    verbose: false,
  },
  { targetName: 'quoting', killGraceMs: 200 },
);

const hostileFragments = [
  `$(touch ${MARKER})`,
  `\`touch ${MARKER}\``,
  `'; touch ${MARKER}; '`,
  `"; touch ${MARKER}; "`,
  `\\'; touch ${MARKER} #`,
  `\ntouch ${MARKER}\n`,
  `& touch ${MARKER} &`,
  `| touch ${MARKER}`,
  `> ${MARKER}`,
  // biome-ignore lint/suspicious/noTemplateCurlyInString: literal shell syntax, on purpose
  '${IFS}',
  '$((1+1))',
  '$HOME',
  '$&',
  '$`',
  "$'",
  '$1',
  '%s',
  '%n',
  '\\',
  '\\\\',
  "'",
  "''",
  '"',
  '`',
  '$',
  '\n',
  '\r\n',
  '\t',
  ' ',
  '  ',
  ';',
  '*',
  '~',
  '#',
  '!',
  '-',
  '--',
  '{PROMPT}',
  '{{EVAL_ID}}',
  '{path}',
  '{basename}',
  '/',
  '\u00e9',
  'e\u0301',
  '\u200f\u202e',
  '\ufeff',
  '\u2028',
  '日本語',
  '🚀',
  '\u{1d518}',
  '\u{10fffd}',
];

/** One piece of a value: a hostile fragment or any code point but NUL. */
const piece = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...hostileFragments) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3 }) },
);

const withoutNul = (value: string) => value.replaceAll('\0', '');

const shortValue = fc.array(piece, { maxLength: 12 }).map((pieces) => withoutNul(pieces.join('')));

/** Long enough that a prompt sometimes passes the limit of one environment variable. */
const longValue = fc
  .tuple(fc.array(piece, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 140_000 }))
  .map(([pieces, length]) => {
    const unit = withoutNul(pieces.join('')) || 'x';
    return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
  });

const longOrShortValue = fc.oneof(
  { weight: 20, arbitrary: shortValue },
  { weight: 1, arbitrary: longValue },
);

/** Rarely, a value with a NUL byte, which no environment variable can carry. */
const valueMaybeNul = fc.oneof(
  { weight: 60, arbitrary: longOrShortValue },
  {
    weight: 1,
    arbitrary: fc.tuple(shortValue, shortValue).map(([left, right]) => `${left}\0${right}`),
  },
);

// Only the prompt may be long: several long values at once could pass the total size of a
// command's environment (ARG_MAX), which is the system's limit, not AgentV's.
const caseArbitrary = fc.record({
  question: valueMaybeNul,
  evalCaseId: shortValue,
  guidelines: shortValue,
  attempt: fc.nat({ max: 9 }),
  inputFiles: fc.array(shortValue, { maxLength: 6 }),
});

type Case = typeof caseArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** The arguments the program must receive, in order. */
function expectedArguments(input: Case): string[] {
  return [
    input.question,
    input.evalCaseId,
    input.guidelines,
    String(input.attempt),
    ...input.inputFiles,
    '--',
    ...input.inputFiles.map((path) => `--attach=${path}:${basename(path)}`),
  ];
}

/** What `AGENTV_PROMPT=<question>` takes in the environment, its terminating NUL included. */
function promptBytes(input: Case): number {
  return Buffer.byteLength(`AGENTV_PROMPT=${input.question}`) + 1;
}

function captured(): Buffer | undefined {
  return existsSync(CAPTURE) ? readFileSync(CAPTURE) : undefined;
}

describe('cli provider quoting (property-based, real processes)', () => {
  it(`passes ${RUNS} random hostile values byte for byte and runs nothing else`, async () => {
    const outcomes = { delivered: 0, tooLong: 0, nul: 0 };
    await fc.assert(
      fc.asyncProperty(caseArbitrary, async (input) => {
        rmSync(CAPTURE, { force: true });
        const request = makeRequest(input);
        const expected = expectedArguments(input);
        if (input.question.includes('\0')) {
          const error = (await catchError(() => provider.invoke(request))) as ProviderError;
          expect(error).toBeInstanceOf(ProviderError);
          expect(error.message).toBe(
            'the value of {PROMPT} contains a NUL byte, which no command argument or environment variable can carry',
          );
          expect(error.hint).toContain('{PROMPT_FILE}');
          expect(captured()).toBeUndefined();
          outcomes.nul++;
        } else if (promptBytes(input) > MAX_ARGUMENT_BYTES) {
          const error = (await catchError(() => provider.invoke(request))) as ProviderError;
          expect(error).toBeInstanceOf(ProviderError);
          expect(error.message).toMatch(
            new RegExp(
              `^the value of \\{PROMPT\\} is ${Buffer.byteLength(input.question)} bytes, over the`,
            ),
          );
          expect(error.hint).toContain('{PROMPT_FILE}');
          expect(captured()).toBeUndefined();
          outcomes.tooLong++;
        } else {
          await provider.invoke(request);
          const bytes = captured();
          const want = Buffer.concat(
            expected.map((argument) => Buffer.from(`${argument}\0`, 'utf8')),
          );
          // Compared as bytes, so a changed byte anywhere fails; the text form is for the report.
          if (bytes === undefined || !bytes.equals(want)) {
            expect((bytes ?? Buffer.alloc(0)).toString('utf8').split('\0')).toEqual([
              ...expected,
              '',
            ]);
            expect(bytes).toEqual(want);
          }
          outcomes.delivered++;
        }
        expect(existsSync(MARKER), 'an injected command ran').toBe(false);
      }),
      { numRuns: RUNS },
    );
    // The generators must exercise every branch, or the property proves less than it says.
    expect(outcomes.delivered).toBeGreaterThan(RUNS * 0.8);
    expect(outcomes.tooLong).toBeGreaterThan(0);
    expect(outcomes.nul).toBeGreaterThan(0);
  }, 180_000);

  it('runs a prompt of exactly the limit of one environment variable, and rejects one byte more', async () => {
    const room = MAX_ARGUMENT_BYTES - Buffer.byteLength('AGENTV_PROMPT=') - 1;
    const fitting = 'é'.repeat(Math.floor(room / 2));
    const question = fitting + 'x'.repeat(room - 2 * fitting.length);
    const input = { question, evalCaseId: 'id', guidelines: '', attempt: 0, inputFiles: [] };
    expect(promptBytes(input)).toBe(MAX_ARGUMENT_BYTES);

    rmSync(CAPTURE, { force: true });
    await provider.invoke(makeRequest(input));
    expect(captured()?.toString('utf8').split('\0')[0]).toBe(question);

    rmSync(CAPTURE, { force: true });
    const error = (await catchError(() =>
      provider.invoke(makeRequest({ ...input, question: `${question}x` })),
    )) as ProviderError;
    expect(error.message).toBe(
      `the value of {PROMPT} is ${room + 1} bytes, over the ${room} bytes the environment variable AGENTV_PROMPT can hold (Linux MAX_ARG_STRLEN: ${MAX_ARGUMENT_BYTES} bytes for NAME=value)`,
    );
    expect(error.hint).toBe(
      'pass long values through files: use {PROMPT_FILE} in command_template',
    );
    expect(error.retryable).toBe(false);
    expect(captured()).toBeUndefined();
  });
});
