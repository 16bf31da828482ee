import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ProviderError } from '@agentv/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createCliProvider } from './cli-provider.js';
import { MAX_ARGUMENT_BYTES } from './render-command-template.js';
import { catchError } from './test-support/catch-error.js';
import { makeRequest } from './test-support/make-request.js';

// The quoting proof (SPEC 4.2): random hostile strings go through a real
// `cli` target into a real program, which must receive each one byte for byte
// while no injected command ever runs. Each run passes about ten strings to
// one process, so the 2,000 runs stay fast.

const RUNS = Math.max(2000, Number(process.env.AGENTV_QUOTING_RUNS ?? 0));

const scratch = mkdtempSync(join(tmpdir(), 'agentv-quoting-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Created only if some value escapes its quotes and runs as a command. */
const MARKER = join(scratch, 'INJECTED');
const CAPTURE = join(scratch, 'argv.bin');

// The coreutils binary rather than the shell builtin, so the values really cross
// an execve() into another program. `%s\0` prints each argument raw, NUL-ended.
const PRINTF = existsSync('/usr/bin/printf') ? '/usr/bin/printf' : '/bin/printf';
const TEMPLATE = `${PRINTF} '%s\\0' {PROMPT} {EVAL_ID} {GUIDELINES} {ATTEMPT} {FILES} -- {ATTACHMENTS} > "$AGENTV_TEST_CAPTURE"`;
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

/** Long enough that the rendered command sometimes passes the one-argument limit. */
const longValue = fc
  .tuple(fc.array(piece, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 70_000 }))
  .map(([pieces, length]) => {
    const unit = withoutNul(pieces.join('')) || 'x';
    return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
  });

const value = fc.oneof({ weight: 40, arbitrary: shortValue }, { weight: 1, arbitrary: longValue });

/** Rarely, a value with a NUL byte, which argv cannot carry. */
const valueMaybeNul = fc.oneof(
  { weight: 60, arbitrary: value },
  {
    weight: 1,
    arbitrary: fc.tuple(shortValue, shortValue).map(([left, right]) => `${left}\0${right}`),
  },
);

const caseArbitrary = fc.record({
  question: valueMaybeNul,
  evalCaseId: value,
  guidelines: value,
  attempt: fc.nat({ max: 9 }),
  inputFiles: fc.array(value, { maxLength: 6 }),
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

/**
 * Bytes of the rendered command plus its terminating NUL, computed without
 * the quoting code: a value of n bytes becomes `'...'` with each `'` as `'\''`.
 */
function renderedBytes(input: Case): number {
  const quoted = (text: string) => Buffer.byteLength(text) + 2 + 3 * (text.split("'").length - 1);
  const values = [
    input.question,
    input.evalCaseId,
    input.guidelines,
    String(input.attempt),
    ...input.inputFiles,
  ];
  const placeholders = ['{PROMPT}', '{EVAL_ID}', '{GUIDELINES}', '{ATTEMPT}', '{FILES}'];
  let bytes = Buffer.byteLength(TEMPLATE) + 1 - Buffer.byteLength('{ATTACHMENTS}');
  for (const name of placeholders) bytes -= Buffer.byteLength(name);
  for (const text of values) bytes += quoted(text);
  // attachments_format's literal text stays as written; only {path} and {basename} are quoted.
  for (const path of input.inputFiles) {
    bytes += Buffer.byteLength('--attach=:') + quoted(path) + quoted(basename(path));
  }
  // List placeholders join their words with one space each.
  bytes += 2 * Math.max(0, input.inputFiles.length - 1);
  return bytes;
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
            'the value of {PROMPT} contains a NUL byte, which cannot be passed as a command-line argument',
          );
          expect(error.hint).toContain('{PROMPT_FILE}');
          expect(captured()).toBeUndefined();
          outcomes.nul++;
        } else if (renderedBytes(input) > MAX_ARGUMENT_BYTES) {
          const error = (await catchError(() => provider.invoke(request))) as ProviderError;
          expect(error).toBeInstanceOf(ProviderError);
          expect(error.message).toMatch(
            new RegExp(`^the rendered command is ${renderedBytes(input)} bytes, over the`),
          );
          expect(error.hint).toMatch(/\{PROMPT_FILE\}|\{INPUT_FILE\}/);
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

  it('runs a command of exactly the one-argument limit, and rejects one byte more', async () => {
    const fixed = renderedBytes({
      question: '',
      evalCaseId: 'id',
      guidelines: '',
      attempt: 0,
      inputFiles: [],
    });
    const fitting = 'é'.repeat(Math.floor((MAX_ARGUMENT_BYTES - fixed) / 2));
    const question = fitting + 'x'.repeat(MAX_ARGUMENT_BYTES - fixed - 2 * fitting.length);
    const input = { question, evalCaseId: 'id', guidelines: '', attempt: 0, inputFiles: [] };
    expect(renderedBytes(input)).toBe(MAX_ARGUMENT_BYTES);

    rmSync(CAPTURE, { force: true });
    await provider.invoke(makeRequest(input));
    expect(captured()?.toString('utf8').split('\0')[0]).toBe(question);

    rmSync(CAPTURE, { force: true });
    const error = (await catchError(() =>
      provider.invoke(makeRequest({ ...input, question: `${question}x` })),
    )) as ProviderError;
    expect(error.message).toBe(
      `the rendered command is ${MAX_ARGUMENT_BYTES + 1} bytes, over the ${MAX_ARGUMENT_BYTES}-byte limit of one command-line argument (Linux MAX_ARG_STRLEN); {PROMPT} alone is ${Buffer.byteLength(question) + 3} bytes`,
    );
    expect(error.hint).toBe(
      'pass long values through files: use {PROMPT_FILE} in command_template',
    );
    expect(error.retryable).toBe(false);
    expect(captured()).toBeUndefined();
  });
});
