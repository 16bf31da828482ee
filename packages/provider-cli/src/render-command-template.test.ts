// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell syntax such as ${VAR} in plain strings, on purpose
import { execFileSync } from 'node:child_process';
import { ProviderError } from '@agentv/core/provider-utils';
import { describe, expect, it } from 'vitest';
import { findPlaceholders, SUPPORTED_PLACEHOLDERS } from './placeholders.js';
import {
  compileCommandTemplate,
  MAX_ARGUMENT_BYTES,
  type RenderedCommand,
  renderCommandTemplate,
} from './render-command-template.js';
import { catchError } from './test-support/catch-error.js';

const allValues = {
  PROMPT: 'What is 2+2?',
  PROMPT_FILE: '/tmp/x/prompt.txt',
  GUIDELINES: 'Be brief.',
  EVAL_ID: 'math-1',
  ATTEMPT: '0',
  REPEAT: '2',
  FILES: ['/data/a.txt', '/data/b c.txt'],
  ATTACHMENTS: ['--attach=/data/a.txt'],
  OUTPUT_FILE: '/tmp/x/output.txt',
  INPUT_FILE: '/tmp/x/input.json',
  TRACE_FILE: '/tmp/x/trace.otlp.json',
  WORKSPACE: '/tmp/ws 1/$(x)',
  EVAL_DIR: '/project/evals dir',
  TURN: '3',
  CONVERSATION_ID: 'suite/math-1#2',
  CONVERSATION_FILE: '/tmp/x/conversation.json',
};

// Runs a rendered `set -- …` with its variables in a shell that prints each argument on its own line.
const argumentsOf = ({ command, variables }: RenderedCommand) =>
  execFileSync('/bin/sh', ['-c', `${command}; for a; do printf '[%s]\\n' "$a"; done`], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, ...variables },
  });

describe('renderCommandTemplate', () => {
  it('renders every supported placeholder as shell words', () => {
    const template = `set -- ${SUPPORTED_PLACEHOLDERS.map((name) => `{${name}}`).join(' ')}`;
    expect(argumentsOf(renderCommandTemplate(template, allValues))).toBe(
      [
        '[What is 2+2?]',
        '[/tmp/x/prompt.txt]',
        '[Be brief.]',
        '[math-1]',
        '[0]',
        '[2]',
        '[/data/a.txt]',
        '[/data/b c.txt]',
        '[--attach=/data/a.txt]',
        '[/tmp/x/output.txt]',
        '[/tmp/x/input.json]',
        '[/tmp/x/trace.otlp.json]',
        '[/tmp/ws 1/$(x)]',
        '[/project/evals dir]',
        '[3]',
        '[suite/math-1#2]',
        '[/tmp/x/conversation.json]',
        '',
      ].join('\n'),
    );
  });

  it('puts variable references in the command, never a value, and leaves the rest as written', () => {
    const rendered = renderCommandTemplate('agent --id {EVAL_ID} -- {PROMPT}', allValues);
    expect(rendered.command).toBe('agent --id "$AGENTV_EVAL_ID" -- "$AGENTV_PROMPT"');
    expect(rendered.variables).toMatchObject({
      AGENTV_EVAL_ID: 'math-1',
      AGENTV_PROMPT: 'What is 2+2?',
    });
  });

  it.each([
    ['bare', 'a {PROMPT}', 'a "$AGENTV_PROMPT"'],
    ['part of a word', 'a --x={PROMPT} a{PROMPT}b', 'a --x="$AGENTV_PROMPT" a"$AGENTV_PROMPT"b'],
    ['double quotes', 'a "Q: {PROMPT}!"', 'a "Q: ${AGENTV_PROMPT}!"'],
    [
      'a single-quoted placeholder',
      "a '{PROMPT}' --x='{EVAL_ID}'",
      'a "$AGENTV_PROMPT" --x="$AGENTV_EVAL_ID"',
    ],
    ['an assignment', 'X={PROMPT} a', 'X="$AGENTV_PROMPT" a'],
    [
      'a redirection',
      'a > {OUTPUT_FILE} < {INPUT_FILE}',
      'a > "$AGENTV_OUTPUT_FILE" < "$AGENTV_INPUT_FILE"',
    ],
    ['$(…)', 'a "$(b {PROMPT} "{EVAL_ID}")"', 'a "$(b "$AGENTV_PROMPT" "${AGENTV_EVAL_ID}")"'],
    ['backquotes', 'a `b {PROMPT}`', 'a `b "$AGENTV_PROMPT"`'],
    ['backquotes in double quotes', 'a "`b {PROMPT}`"', 'a "`b \\"$AGENTV_PROMPT\\"`"'],
    ['a here-document', 'cat <<EOF\n{PROMPT}\nEOF', 'cat <<EOF\n${AGENTV_PROMPT}\nEOF'],
    [
      'arguments after a -c script',
      'sh -c \'a "$1"\' sh {PROMPT}',
      'sh -c \'a "$1"\' sh "$AGENTV_PROMPT"',
    ],
    [
      'a for loop',
      'for f in {FILES}; do a "$f"; done',
      'for f in "$AGENTV_FILES_1" "$AGENTV_FILES_2"; do a "$f"; done',
    ],
    ['a case word', 'case {EVAL_ID} in x) a;; esac', 'case "$AGENTV_EVAL_ID" in x) a;; esac'],
    ['a program with a -c option', 'agent -c cfg {PROMPT}', 'agent -c cfg "$AGENTV_PROMPT"'],
    ['printf data', "printf '%s' {PROMPT}", 'printf \'%s\' "$AGENTV_PROMPT"'],
    ['an exported assignment', 'export X={PROMPT}; agent', 'export X="$AGENTV_PROMPT"; agent'],
  ])('references a value %s', (_context, template, command) => {
    expect(renderCommandTemplate(template, allValues).command).toBe(command);
  });

  it('renders list placeholders as one reference per file, or their joined value in quotes', () => {
    const options = { filesFormat: '--file {path}', attachmentsFormat: "--name='{basename}'" };
    expect(
      renderCommandTemplate('a {FILES} {ATTACHMENTS} "{FILES}" \'{FILES}\'', allValues, options)
        .command,
    ).toBe(
      'a --file "$AGENTV_FILES_1" --file "$AGENTV_FILES_2" --name="$AGENTV_ATTACHMENTS_1_BASENAME" "${AGENTV_FILES}" "$AGENTV_FILES"',
    );
    const { variables } = renderCommandTemplate('a', allValues, options);
    expect(variables.AGENTV_FILES).toBe('--file /data/a.txt --file /data/b c.txt');
    expect(variables.AGENTV_ATTACHMENTS).toBe("--name='a.txt'");
  });

  it('renders an empty file list as nothing, not as an empty argument', () => {
    expect(renderCommandTemplate('agent {FILES} end', { FILES: [] }).command).toBe('agent  end');
  });

  it('leaves lower-case braces, JSON and shell parameter expansion alone', () => {
    const template = `agent --json '{"a":1}' --home \${HOME} {lower} {PROMPT}`;
    expect(renderCommandTemplate(template, { PROMPT: 'p' }).command).toBe(
      `agent --json '{"a":1}' --home \${HOME} {lower} "$AGENTV_PROMPT"`,
    );
  });

  it('turns {{NAME}} into a literal {NAME}', () => {
    const template = "echo {{PROMPT}} {PROMPT} {{WHATEVER}} '{{EVAL_ID}}'";
    expect(renderCommandTemplate(template, { PROMPT: 'x' }).command).toBe(
      `echo {PROMPT} "$AGENTV_PROMPT" {WHATEVER} '{EVAL_ID}'`,
    );
  });

  it('sets the file placeholders’ variables only when the template uses them or names them', () => {
    expect(renderCommandTemplate('agent', allValues).variables).not.toHaveProperty(
      'AGENTV_OUTPUT_FILE',
    );
    expect(
      renderCommandTemplate('agent --out "$AGENTV_OUTPUT_FILE"', allValues).variables,
    ).toHaveProperty('AGENTV_OUTPUT_FILE', '/tmp/x/output.txt');
  });

  it('rejects an unknown placeholder, listing the supported ones', async () => {
    const error = (await catchError(() =>
      renderCommandTemplate('agent {QUESTION}', allValues),
    )) as ProviderError;
    expect(error.message).toMatch(/unknown placeholder \{QUESTION\}/);
    expect(error.hint).toContain('{PROMPT}, {PROMPT_FILE}');
  });

  it('rejects a NUL byte in a value the template uses, suggesting {PROMPT_FILE}', async () => {
    const caught = await catchError(() =>
      renderCommandTemplate('agent {PROMPT}', { PROMPT: 'a\0b' }),
    );
    expect(caught).toBeInstanceOf(ProviderError);
    expect((caught as ProviderError).message).toBe(
      'the value of {PROMPT} contains a NUL byte, which no command argument or environment variable can carry',
    );
    expect((caught as ProviderError).hint).toContain('{PROMPT_FILE}');
    expect((caught as ProviderError).retryable).toBe(false);
    // A value the template does not use is left out instead.
    expect(renderCommandTemplate('agent', { PROMPT: 'a\0b' }).variables).toEqual({});
  });

  it('rejects a value over the limit of one environment variable, suggesting {PROMPT_FILE}', async () => {
    const room = MAX_ARGUMENT_BYTES - 'AGENTV_PROMPT='.length - 1;
    const caught = (await catchError(() =>
      renderCommandTemplate('agent {PROMPT}', { PROMPT: 'é'.repeat(room) }),
    )) as ProviderError;
    expect(caught.message).toBe(
      `the value of {PROMPT} is ${2 * room} bytes, over the ${room} bytes the environment variable AGENTV_PROMPT can hold (Linux MAX_ARG_STRLEN: 131072 bytes for NAME=value)`,
    );
    expect(caught.hint).toBe(
      'pass long values through files: use {PROMPT_FILE} in command_template',
    );
    expect(caught.retryable).toBe(false);
    expect(
      renderCommandTemplate('agent {PROMPT_FILE}', {
        PROMPT: 'x'.repeat(room + 1),
        PROMPT_FILE: '/p',
      }).variables,
    ).not.toHaveProperty('AGENTV_PROMPT');
  });

  it('accepts a value of exactly the limit', () => {
    const room = MAX_ARGUMENT_BYTES - 'AGENTV_PROMPT='.length - 1;
    const prompt = `${'é'.repeat((room - 1) / 2)}x`;
    expect(Buffer.byteLength(prompt)).toBe(room);
    expect(renderCommandTemplate('a {PROMPT}', { PROMPT: prompt }).variables.AGENTV_PROMPT).toBe(
      prompt,
    );
  });

  it('reads the template once: the command text is the same for every value', () => {
    const compiled = compileCommandTemplate('agent "{PROMPT}" {EVAL_ID}');
    expect(compiled.render({ PROMPT: "$(id)'", EVAL_ID: 'a' }).command).toBe(
      compiled.render({ PROMPT: 'plain', EVAL_ID: '`b`' }).command,
    );
  });
});

describe('findPlaceholders', () => {
  it('lists used placeholders once, in order, skipping escapes and shell expansions', () => {
    expect(findPlaceholders('a {PROMPT} {{EVAL_ID}} ${HOME} {FOO_2} {PROMPT} {x}')).toEqual([
      'PROMPT',
      'FOO_2',
    ]);
  });
});

const NESTED_SHELL_HINT =
  'for text around it use double quotes ("Q: {PROMPT}"); for a nested shell, reference the variable inside it so the inner shell expands it (sh -c \'agent "$AGENTV_PROMPT"\')';

describe('placeholders AgentV refuses where they stand', () => {
  it.each([
    [
      "sh -c 'agent {PROMPT}'",
      "{PROMPT} is inside single quotes with other text ('agent {PROMPT}'): such a string is usually a script for another shell, which would run the value as code",
      NESTED_SHELL_HINT,
    ],
    [
      "echo 'Q: {PROMPT} / {EVAL_ID}'",
      "{PROMPT} and {EVAL_ID} are inside single quotes with other text ('Q: {PROMPT} / {EVAL_ID}'): such a string is usually a script for another shell, which would run the value as code",
      NESTED_SHELL_HINT,
    ],
    [
      'bash -lc "agent {PROMPT}"',
      '{PROMPT} is in the script of "bash -c" ("agent {PROMPT}"), which the inner shell would parse as code',
      'reference the variable inside the script so the inner shell expands it (bash -c \'agent "$AGENTV_PROMPT"\'), or pass the value as an argument after the script (bash -c \'agent "$1"\' sh {PROMPT})',
    ],
    [
      'docker exec box sh -c {PROMPT}',
      '{PROMPT} is in the script of "sh -c" ({PROMPT}), which the inner shell would parse as code',
      undefined,
    ],
    [
      'env A=1 /bin/dash -e -c -- "$(cat {PROMPT_FILE})"',
      '{PROMPT_FILE} is in the script of "dash -c" ("$(cat {PROMPT_FILE})"), which the inner shell would parse as code',
      undefined,
    ],
    [
      'su -c "agent {PROMPT}" bob',
      '{PROMPT} is in the script of "su -c" ("agent {PROMPT}"), which the inner shell would parse as code',
      'reference the variable inside the script so the inner shell expands it (su -c \'agent "$AGENTV_PROMPT"\')',
    ],
    [
      '"$SHELL" -c {PROMPT}',
      '{PROMPT} is in the script of a -c option ({PROMPT}) of a program named by a variable, which may be a shell that would parse it as code',
      undefined,
    ],
    [
      'eval agent {PROMPT}',
      '{PROMPT} is an argument of eval ({PROMPT}), which parses its arguments as shell code',
      'run the command directly, without eval: AgentV passes {PROMPT} as one word that is never parsed',
    ],
    [
      'command eval "agent {PROMPT}"',
      '{PROMPT} is an argument of eval ("agent {PROMPT}"), which parses its arguments as shell code',
      undefined,
    ],
    [
      'python3 -c "print(\'{PROMPT}\')"',
      '{PROMPT} is in the code python3 runs ("print(\'{PROMPT}\')"), which would run the value as python3 code',
      'read the variable inside the code instead (os.environ["AGENTV_PROMPT"]), or pass the value as an argument after the code',
    ],
    [
      'node -e "console.log({EVAL_ID})" --',
      '{EVAL_ID} is in the code node runs ("console.log({EVAL_ID})"), which would run the value as node code',
      'read the variable inside the code instead (process.env.AGENTV_EVAL_ID), or pass the value as an argument after the code',
    ],
    [
      'ssh host agent {PROMPT}',
      '{PROMPT} is an argument of ssh ({PROMPT}), which joins its arguments into one command for the remote shell to parse',
      'send the value on stdin instead (ssh HOST agent < {PROMPT_FILE})',
    ],
    [
      '{PROMPT} --help',
      '{PROMPT} is where the program or script to run is named ({PROMPT}), so the value would choose what runs',
      'name the program yourself and pass the value as an argument (agent {PROMPT})',
    ],
    [
      'timeout 5 env -u X {EVAL_ID}',
      '{EVAL_ID} is where the program or script to run is named ({EVAL_ID}), so the value would choose what runs',
      undefined,
    ],
    [
      'bash {PROMPT_FILE}',
      '{PROMPT_FILE} is where the program or script to run is named ({PROMPT_FILE}), so the value would choose what runs',
      undefined,
    ],
    [
      'agent "${X:-{PROMPT}}"',
      '{PROMPT} is inside a parameter expansion (${X:-{PROMPT}}), whose quoting rules differ between shells',
      'use the variable in the expansion instead ("${X:-$AGENTV_PROMPT}")',
    ],
    [
      'agent $(( {ATTEMPT} + 1 ))',
      '{ATTEMPT} is inside an arithmetic expression or [[ … ]] test ($(( {ATTEMPT} + 1 ))), which bash evaluates as code (a[$(…)] runs a command)',
      'compute or compare in the agent instead, or use [ … ] (test), which does not evaluate its operands',
    ],
    [
      '[[ {ATTEMPT} -eq 0 ]] && agent',
      '{ATTEMPT} is inside an arithmetic expression or [[ … ]] test ({ATTEMPT}), which bash evaluates as code (a[$(…)] runs a command)',
      undefined,
    ],
    [
      "cat <<'EOF' | agent\n{PROMPT}\nEOF",
      "{PROMPT} is in a here-document with a quoted delimiter (<<'EOF'), whose body the shell does not expand",
      'unquote the delimiter (<<EOF): AgentV then passes the value as ${AGENTV_PROMPT}, and no line of it can end the here-document',
    ],
    [
      'cat <<{EVAL_ID}\nx\n{EVAL_ID}',
      '{EVAL_ID} is the delimiter of a here-document (<<{EVAL_ID})',
      'use a fixed word such as EOF',
    ],
    [
      'agent # was: agent {PROMPT}',
      '{PROMPT} is inside a # comment (# was: agent {PROMPT})',
      'remove it, or write {{PROMPT}} for a literal {PROMPT}',
    ],
    [
      "agent $'{PROMPT}'",
      "{PROMPT} is inside $'…' quotes ($'{PROMPT}'), whose rules differ between shells",
      'use double quotes ("… {PROMPT} …")',
    ],
    [
      'read -r {EVAL_ID} < /dev/null; agent',
      '{EVAL_ID} is a variable name for read ({EVAL_ID}), which bash evaluates as code when it holds a subscript (a[$(…)] runs a command)',
      'pass the value as data, not as a name (X={EVAL_ID}, or read "$AGENTV_EVAL_ID" directly)',
    ],
    [
      'printf {PROMPT} x',
      '{PROMPT} is the format (or -v name) of printf ({PROMPT}), which bash evaluates as code when it holds a subscript (a[$(…)] runs a command)',
      "print the value with a fixed format (printf '%s' {PROMPT})",
    ],
    ['export {EVAL_ID}', undefined, undefined],
    ['[ -v {EVAL_ID} ] && agent', undefined, undefined],
    [
      'declare -i N; N={ATTEMPT}; agent "$N"',
      '{ATTEMPT} is in a template that declares an integer or nameref variable (declare -i), whose assignments bash evaluates as code',
      'drop the -i / -n attribute, or compute in the agent instead',
    ],
    [
      'agent "{PROMPT}',
      'an unclosed " (at character 7) hides where {PROMPT} stands',
      'close it: the shell would fail on it too',
    ],
  ])('%j', async (template, message, hint) => {
    const compiled = compileCommandTemplate(template);
    expect(compiled.problems[0]).toEqual({
      setting: 'command_template',
      message: message ?? expect.any(String),
      hint: hint ?? expect.any(String),
    });
    // Rendering refuses too, so nothing runs even without validation.
    const error = (await catchError(() =>
      compiled.render({ ...allValues, PROMPT: 'p' }),
    )) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe(`command_template: ${compiled.problems[0]!.message}`);
    expect(error.retryable).toBe(false);
  });

  it('refuses a files_format that puts {path} in single quotes with other text', () => {
    const compiled = compileCommandTemplate('agent {FILES}', { filesFormat: "--file='x {path}'" });
    expect(compiled.problems).toEqual([
      {
        setting: 'files_format',
        message:
          "{path} is inside single quotes with other text ('x {path}'): such a string is usually a script for another shell, which would run the value as code",
        hint: 'for text around it use double quotes ("Q: {path}"); for a nested shell, reference the variable inside it so the inner shell expands it (sh -c \'agent "$AGENTV_FILES_1"\')',
      },
    ]);
  });
});
