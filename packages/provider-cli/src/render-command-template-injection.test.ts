import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type CommandTemplateOptions,
  compileCommandTemplate,
  type PlaceholderValues,
} from './render-command-template.js';

// The injection proof: hostile values go through every template context AgentV
// accepts, and real shells run the rendered commands. No value may run a command
// (a marker file and a sentinel stay untouched), and the receiving program must get
// each value byte for byte. Values reach the shell as environment variables, as in
// a run: each batch is one script that sets them from its own environment per call.

const BATCH = 250;
/**
 * `.ci/run`'s second pass (AGENTV_SKIP_EXTERNAL_PROGRAMS=1, on another Node) runs one batch per
 * context under `/bin/sh`: what a shell does with the values does not depend on the Node that
 * runs AgentV, and the first pass ran them all (the commands rendered are the same whatever the
 * values, as the last test below shows).
 */
const SECOND_PASS = process.env.AGENTV_SKIP_EXTERNAL_PROGRAMS === '1';
/** Values per context under `/bin/sh` (the issue asks for at least 2,000); raise with AGENTV_INJECTION_VALUES. */
const VALUES = SECOND_PASS
  ? BATCH
  : Math.max(2000, Number(process.env.AGENTV_INJECTION_VALUES ?? 0));

const scratch = mkdtempSync(join(tmpdir(), 'agentv-injection-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const MARKER = join(scratch, 'INJECTED');
const SENTINEL = join(scratch, 'sentinel');
writeFileSync(SENTINEL, '');

// The receiving program writes each argument raw, NUL-terminated. Most contexts use the
// shell's own printf (one fork per call would make 2,000 values per context slow); a few
// use the coreutils binary, so the values also cross an execve() into another program.
const PRINTF = existsSync('/usr/bin/printf') ? '/usr/bin/printf' : '/bin/printf';
const EXEC_ARGS = `${PRINTF} '%s\\0'`;
const ARGS = `printf '%s\\0'`;
const RAW = `printf '%s'`;
/** `EXEC_ARGS` for a script inside single quotes. */
const ARGS_INNER = `${PRINTF} "%s\\0"`;

/**
 * Shells the scripts run under, with the values each gets: AgentV's `/bin/sh`, and bash
 * in POSIX mode (`/bin/sh` on other systems) with one batch, as a second opinion (first pass only).
 */
const SHELLS: Shell[] = [{ path: '/bin/sh', flags: [], values: VALUES }];
if (existsSync('/bin/bash') && !SECOND_PASS) {
  SHELLS.push({ path: '/bin/bash', flags: ['--posix'], values: BATCH });
}

interface Shell {
  path: string;
  flags: string[];
  values: number;
}

interface Call {
  prompt: string;
  evalId: string;
  guidelines: string;
  files: string[];
}

/** What the receiving program must write for a call, or undefined when only "nothing ran" is checked. */
type Expected = (call: Call) => Buffer | undefined;

const args = (...values: string[]) => Buffer.from(values.map((value) => `${value}\0`).join(''));
/** `$(…)` drops trailing newlines. */
const substituted = (value: string) => value.replace(/\n+$/, '');

interface TemplateContext {
  template: string;
  options?: CommandTemplateOptions;
  expected: Expected;
}

const FORMAT = `--file {path} --name='{basename}' --both="{path}:{basename}"`;

/** Every context AgentV accepts a placeholder in, each with what the program receives. */
const CONTEXTS: Record<string, TemplateContext> = {
  'bare words': {
    template: `${EXEC_ARGS} {PROMPT} {EVAL_ID} -- {GUIDELINES}`,
    expected: (c) => args(c.prompt, c.evalId, '--', c.guidelines),
  },
  'part of a word': {
    template: `${ARGS} --prompt={PROMPT} a{EVAL_ID}b{GUIDELINES}`,
    expected: (c) => args(`--prompt=${c.prompt}`, `a${c.evalId}b${c.guidelines}`),
  },
  'inside double quotes with text': {
    template: `${ARGS} "Q: {PROMPT} (id {EVAL_ID})" "{GUIDELINES}" "say \\"{PROMPT}\\""`,
    expected: (c) => args(`Q: ${c.prompt} (id ${c.evalId})`, c.guidelines, `say "${c.prompt}"`),
  },
  'a single-quoted placeholder': {
    template: `${ARGS} '{PROMPT}' --id='{EVAL_ID}'`,
    expected: (c) => args(c.prompt, `--id=${c.evalId}`),
  },
  'variable assignments': {
    template: `X={PROMPT} Y="{EVAL_ID}"; ${ARGS} "$X" "$Y"`,
    expected: (c) => args(c.prompt, c.evalId),
  },

  '"$(…)" with a bare placeholder': {
    template: `${ARGS} "$(${RAW} {PROMPT})" "$(${RAW} "id={EVAL_ID}")"`,
    expected: (c) => args(substituted(c.prompt), substituted(`id=${c.evalId}`)),
  },
  'unquoted $(…)': {
    // Word splitting and globbing apply to the result: only "nothing ran" is checked.
    template: `${ARGS} $(${RAW} {PROMPT}) x`,
    expected: () => undefined,
  },
  backquotes: {
    template: `${ARGS} "\`${RAW} {PROMPT}\`" "\`${RAW} "{EVAL_ID}"\`"`,
    expected: (c) => args(substituted(c.prompt), substituted(c.evalId)),
  },
  'nested backquotes': {
    template: `${ARGS} "\`${RAW} \\"\\\`${RAW} {PROMPT}\\\`\\"\`"`,
    expected: (c) => args(substituted(c.prompt)),
  },
  'a here-document': {
    template: `cat <<EOF\nQ: {PROMPT}\n"{EVAL_ID}" '{GUIDELINES}'\nEOF`,
    expected: (c) => Buffer.from(`Q: ${c.prompt}\n"${c.evalId}" '${c.guidelines}'\n`),
  },
  'a here-document with <<-': {
    template: `cat <<-END\n\t{PROMPT}\n\tEND`,
    expected: (c) => Buffer.from(`${c.prompt}\n`),
  },
  'a here-document inside "$(…)"': {
    template: `${ARGS} "$(cat <<EOF\n{PROMPT}\nEOF\n)"`,
    expected: (c) => args(substituted(c.prompt)),
  },
  // One nested shell for three contexts: an assignment before it, arguments after its
  // script, and a variable its script reads (the form the refusals' hints suggest).
  'a nested shell': {
    template: `X={PROMPT} sh -c '${ARGS_INNER} "$X" "$1" "$2" "$AGENTV_GUIDELINES"' sh {PROMPT} "{EVAL_ID}"`,
    expected: (c) => args(c.prompt, c.prompt, c.evalId, c.guidelines),
  },
  'lists and operators': {
    template: `true && true | ${ARGS} {PROMPT}; case {EVAL_ID} in *) ${ARGS} {EVAL_ID};; esac`,
    expected: (c) => Buffer.concat([args(c.prompt), args(c.evalId)]),
  },
  '{FILES} as words, through a files_format': {
    template: `${EXEC_ARGS} {FILES} end`,
    options: { filesFormat: FORMAT },
    expected: (c) =>
      args(
        ...c.files.flatMap((path) => [
          '--file',
          path,
          `--name=${basename(path)}`,
          `--both=${path}:${basename(path)}`,
        ]),
        'end',
      ),
  },
  '{FILES} in double quotes and a loop': {
    template: `${ARGS} "{FILES}"; for f in {FILES}; do ${ARGS} "$f"; done`,
    expected: (c) => Buffer.concat([args(c.files.join(' ')), args(...c.files)]),
  },
};

/** Values that run a command (touch `marker`, or append to `sentinel`) where a shell parses them as code. */
const hostile = (marker: string, sentinel: string) => [
  `$(touch ${marker})`,
  `\`touch ${marker}\``,
  `; touch ${marker}`,
  `&& touch ${marker}`,
  `| touch ${marker}`,
  `\ntouch ${marker}\n`,
  `\nEOF\ntouch ${marker}\nEOF\n`,
  `\n\tEND\ntouch ${marker}\n`,
  `'; touch ${marker}; '`,
  `"; touch ${marker}; "`,
  `\\"; touch ${marker}; #`,
  `"$(touch ${marker})"`,
  `\`echo x >> ${sentinel}\``,
  `$(echo x >> ${sentinel})`,
  `\necho x >> ${sentinel}`,
  `a[$(touch ${marker})]`,
  `$(($(touch ${marker})))`,
  `() { :; }; touch ${marker}`,
  // biome-ignore lint/suspicious/noTemplateCurlyInString: literal shell syntax, on purpose
  '${IFS}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: literal shell syntax, on purpose
  '${X:-$(id)}',
  '$HOME',
  '$1',
  '$@',
  '$*',
  '$?',
  '$$',
  '$',
  '`',
  '\\',
  '\\\\',
  '\\\n',
  "'",
  '"',
  '\n',
  '\r\n',
  '\t',
  ' ',
  '  ',
  ';',
  '&',
  '|',
  '<',
  '>',
  '(',
  ')',
  '{',
  '}',
  '#',
  '!',
  '*',
  '?',
  '[a-z]',
  '~',
  '-',
  '--',
  '-c',
  '--help',
  '%s',
  '%n',
  'EOF',
  'END',
  '{PROMPT}',
  '{{EVAL_ID}}',
  '$AGENTV_PROMPT',
  '"$AGENTV_EVAL_ID"',
  '{path}',
  '\u00e9',
  'e\u0301',
  '\u200f\u202e',
  '\ufeff',
  '\u2028',
  '日本語',
  '🚀',
  '\u{10fffd}',
];

/** One piece of a value: a hostile fragment, random code points (no NUL), or graphemes. */
const piece = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...hostile(MARKER, SENTINEL)) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3 }) },
);
const value = fc
  .array(piece, { maxLength: 10 })
  .map((pieces) => pieces.join('').replaceAll('\0', ''));
const call = fc.record({
  prompt: value,
  evalId: value,
  guidelines: value,
  files: fc.array(value, { maxLength: 3 }),
});

function valuesOf(input: Call): PlaceholderValues {
  return {
    PROMPT: input.prompt,
    EVAL_ID: input.evalId,
    GUIDELINES: input.guidelines,
    ATTEMPT: '0',
    REPEAT: '1',
    FILES: input.files,
    ATTACHMENTS: [],
  };
}

/**
 * Runs a batch of calls of one context in one shell: one function per distinct
 * command text, called once per value set after exporting that call's `AGENTV_*`
 * variables, which come from the script's environment. The script first moves those
 * values into unexported variables, so each command starts with a small
 * environment, as in a run. Returns what each call wrote.
 */
function runBatch(shell: Shell, context: TemplateContext, calls: readonly Call[]): Buffer[] {
  const compiled = compileCommandTemplate(context.template, context.options);
  expect(compiled.problems).toEqual([]);
  const dir = mkdtempSync(join(scratch, 'batch-'));
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const functions = new Map<string, string>();
  const lines: string[] = [];
  const moves: string[] = [];
  calls.forEach((input, index) => {
    const { command, variables } = compiled.render(valuesOf(input));
    let name = functions.get(command);
    if (name === undefined) {
      name = `run_${functions.size}`;
      functions.set(command, name);
    }
    const assignments = Object.keys(variables).map((variable) => {
      env[`V${index}_${variable}`] = variables[variable]!;
      moves.push(`W${index}_${variable}=$V${index}_${variable}; unset V${index}_${variable}`);
      return `${variable}=$W${index}_${variable}; export ${variable}`;
    });
    lines.push(`${assignments.join('; ')}; ${name} > "$OUT/${index}" 2>> "$OUT/stderr"`);
  });
  const script = [
    ...moves,
    ...[...functions].map(([command, name]) => `${name}() {\n${command}\n}`),
    ...lines,
  ].join('\n');
  env.OUT = dir;
  writeFileSync(join(dir, 'script.sh'), script);
  const result = spawnSync(shell.path, [...shell.flags, join(dir, 'script.sh')], { env, cwd: dir });
  expect(result.error).toBeUndefined();
  const stderr = existsSync(join(dir, 'stderr')) ? readFileSync(join(dir, 'stderr'), 'utf8') : '';
  expect(result.status, `${shell.path} failed: ${result.stderr}${stderr}`).toBe(0);
  const outputs = calls.map((_, index) => readFileSync(join(dir, String(index))));
  rmSync(dir, { recursive: true, force: true });
  return outputs;
}

const shellName = (shell: Shell) => [shell.path, ...shell.flags].join(' ');

describe('no placeholder value ever runs, in any accepted template context', () => {
  it.each(
    Object.entries(CONTEXTS).flatMap(([name, context]) =>
      SHELLS.map((shell) => [name, shellName(shell), shell, context] as const),
    ),
  )(
    '%s, under %s',
    (_name, _shellName, shell, context) => {
      let checked = 0;
      fc.assert(
        fc.property(fc.array(call, { minLength: BATCH, maxLength: BATCH }), (calls) => {
          const outputs = runBatch(shell, context, calls);
          calls.forEach((input, index) => {
            const want = context.expected(input);
            if (want !== undefined && !outputs[index]!.equals(want)) {
              // The text form first, for a readable report; then the bytes.
              expect(outputs[index]!.toString('utf8').split('\0')).toEqual(
                want.toString('utf8').split('\0'),
              );
              expect(outputs[index]).toEqual(want);
            }
          });
          expect(existsSync(MARKER), 'a value ran touch').toBe(false);
          expect(readFileSync(SENTINEL, 'utf8'), 'a value wrote to the sentinel').toBe('');
          checked += calls.length;
        }),
        // A failing batch is reported as is: shrinking would rerun hundreds of shells.
        { numRuns: Math.ceil(shell.values / BATCH), endOnFailure: true },
      );
      expect(checked).toBeGreaterThanOrEqual(shell.values);
    },
    300_000,
  );

  it('renders the same command text whatever the values are (they are never in it)', () => {
    for (const context of Object.values(CONTEXTS)) {
      const compiled = compileCommandTemplate(context.template, context.options);
      const commands = new Set(
        fc
          .sample(call, { numRuns: 200, seed: 22 })
          .map((input) => compiled.render(valuesOf({ ...input, files: ['/a', '/b'] })).command),
      );
      expect(commands.size, context.template).toBe(1);
    }
  });
});

describe('the hostile values', () => {
  it('do run commands where a shell parses them, so the tests above can fail', () => {
    const marker = join(scratch, 'LIVE');
    const sentinel = join(scratch, 'live-sentinel');
    const live = hostile(marker, sentinel).filter(
      (fragment) => fragment.includes(marker) || fragment.includes(sentinel),
    );
    // How templates quoted by hand (or by AgentV before) put a value into a command.
    const splices = (value: string) => [
      `echo ${value}`,
      `echo "${value}"`,
      `echo '${value}'`,
      `cat <<EOF\n${value}\nEOF`,
      `cat <<-END\n\t${value}\n\tEND`,
    ];
    for (const fragment of live) {
      rmSync(marker, { force: true });
      writeFileSync(sentinel, '');
      for (const command of splices(fragment)) {
        spawnSync('/bin/bash', ['-c', command], { cwd: scratch, stdio: 'ignore' });
      }
      const ran = existsSync(marker) || readFileSync(sentinel, 'utf8') !== '';
      expect(ran, `${JSON.stringify(fragment)} never ran`).toBe(true);
    }
  });
});

describe('the variables a nested script may read', () => {
  it('sets every value, the files one per item with their count, and the file paths only when used', () => {
    const dir = join(scratch, 'variables');
    mkdirSync(dir);
    const compiled = compileCommandTemplate('agent');
    const { variables } = compiled.render({
      ...valuesOf({ prompt: 'p', evalId: 'id', guidelines: 'g', files: ['/x/a.txt', '/y/b c'] }),
      PROMPT_FILE: '/tmp/prompt.txt',
    });
    expect(variables).toEqual({
      AGENTV_PROMPT: 'p',
      AGENTV_GUIDELINES: 'g',
      AGENTV_EVAL_ID: 'id',
      AGENTV_ATTEMPT: '0',
      AGENTV_REPEAT: '1',
      AGENTV_FILES_COUNT: '2',
      AGENTV_FILES_1: '/x/a.txt',
      AGENTV_FILES_1_BASENAME: 'a.txt',
      AGENTV_FILES_2: '/y/b c',
      AGENTV_FILES_2_BASENAME: 'b c',
      AGENTV_FILES: '/x/a.txt /y/b c',
      AGENTV_ATTACHMENTS_COUNT: '0',
      AGENTV_ATTACHMENTS: '',
    });
    const named = compileCommandTemplate(`sh -c 'agent < "$AGENTV_PROMPT_FILE"'`);
    expect(named.uses.has('PROMPT_FILE')).toBe(true);
    expect(
      named.render({ PROMPT: 'p', PROMPT_FILE: '/tmp/prompt.txt' }).variables.AGENTV_PROMPT_FILE,
    ).toBe('/tmp/prompt.txt');
  });
});
