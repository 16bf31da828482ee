import { basename } from 'node:path';
import { ProviderError } from '@agentv/core/provider-utils';
import { type CompiledFilesFormat, compileFilesFormat } from './compile-files-format.js';
import { directArgv, directWords } from './direct-words.js';
import { itemVariableName, mentionedPlaceholders, variableName } from './placeholder-variables.js';
import {
  FILE_PLACEHOLDERS,
  formatSupportedPlaceholders,
  isSupportedPlaceholder,
  LIST_PLACEHOLDERS,
  type Placeholder,
  SUPPORTED_PLACEHOLDERS,
  TOKEN_PATTERN,
} from './placeholders.js';
import { scanCommandTemplate } from './scan-command-template.js';
import { refusalProblem, type TemplateProblem } from './template-refusal.js';
import type { TemplateSlot } from './template-slot.js';
import { inBackquotes, reference } from './variable-reference.js';

/**
 * Values of a call: a string per placeholder; for `{FILES}` and `{ATTACHMENTS}`
 * the files' absolute paths.
 */
export type PlaceholderValues = Partial<Record<Placeholder, string | readonly string[]>>;

/** How `{FILES}` / `{ATTACHMENTS}` render each file: `{path}` and/or `{basename}` (default `{path}`). */
export interface CommandTemplateOptions {
  filesFormat?: string;
  attachmentsFormat?: string;
}

/** A placeholder AgentV refuses where it stands, with the setting it is in. */
export interface TemplateIssue extends TemplateProblem {
  setting: 'command_template' | 'files_format' | 'attachments_format';
}

/** A command ready to run: its text, and the variables to add to its environment. */
export interface RenderedCommand {
  /** The shell command: the template with a variable reference where each placeholder stood. */
  command: string;
  /** `AGENTV_*` variables holding the call's values. */
  variables: Record<string, string>;
  /**
   * Set when the template is plain words (see `directWords`): the same command as a program
   * and its arguments, each placeholder's value byte for byte in its argument, to run
   * without a shell.
   */
  argv?: string[];
}

/** A command template read once, rendered for every call. */
export interface CompiledCommandTemplate {
  /** Every placeholder AgentV refuses (see `compileCommandTemplate`), one issue per construct. */
  readonly problems: readonly TemplateIssue[];
  /** Placeholders the template uses, or whose `AGENTV_*` variable it names. */
  readonly uses: ReadonlySet<string>;
  /**
   * The command and variables for one call's values. Throws a non-retryable
   * `ProviderError` when the template has problems or an unknown placeholder,
   * when a placeholder it uses has no value, or when a value it uses cannot be
   * passed (a NUL byte, or over `MAX_ARGUMENT_BYTES` as `NAME=value`).
   */
  render(values: PlaceholderValues): RenderedCommand;
}

/**
 * Linux `MAX_ARG_STRLEN`: the longest single argv or environment string,
 * terminating NUL included. It bounds the command (one argument of `sh -c`) and
 * each `AGENTV_NAME=value`.
 */
export const MAX_ARGUMENT_BYTES = 128 * 1024;

const TOKEN_AT = new RegExp(TOKEN_PATTERN.source, 'y');

/** `compileCommandTemplate(template, options).render(values)`, for a template rendered once. */
export function renderCommandTemplate(
  template: string,
  values: PlaceholderValues,
  options: CommandTemplateOptions = {},
): RenderedCommand {
  return compileCommandTemplate(template, options).render(values);
}

/**
 * Reads a command template once. Values never enter the command text: each
 * placeholder becomes a reference to an `AGENTV_*` environment variable in the
 * form its place calls for — `"$AGENTV_PROMPT"` as (part of) a word or for a
 * single-quoted `'{PROMPT}'`, `${AGENTV_PROMPT}` inside double quotes or an
 * unquoted here-document, the same inside `$(…)` and backquotes — and `render`
 * returns the values as variables. The shell expands a reference without parsing
 * the value, so no value can run as a command. `{FILES}` / `{ATTACHMENTS}` as
 * words become the format once per file (`--file "$AGENTV_FILES_1" --file …`;
 * the count is AgentV's, never the data's); elsewhere the joined `$AGENTV_FILES`.
 * `{{NAME}}` is written as a literal `{NAME}`.
 *
 * `problems` lists placeholders that stand where the value would be parsed as
 * code or not expanded (see `RefusalKind`): single quotes with other text, a
 * shell's `-c` script, `eval`, `${…}`, `$((…))`, `[[ … ]]`, the command name, a
 * quoted here-document, a comment; and an unclosed quote that hides where they stand.
 */
export function compileCommandTemplate(
  template: string,
  options: CommandTemplateOptions = {},
): CompiledCommandTemplate {
  const scanned = scanCommandTemplate(template, TOKEN_AT);
  const placeholders = scanned.slots.filter((slot) => slot.kind === 'placeholder');
  refuseAfterAttributes(template, placeholders);
  const problems: TemplateIssue[] = [];
  if (scanned.unclosed && placeholders.length > 0) {
    const names = [...new Set(placeholders.map((slot) => `{${slot.name}}`))].join(', ');
    problems.push({
      setting: 'command_template',
      message: `an unclosed ${scanned.unclosed.what} (at character ${scanned.unclosed.at + 1}) hides where ${names} stand${placeholders.length === 1 ? 's' : ''}`,
      hint: 'close it: the shell would fail on it too',
    });
  }
  problems.push(...refusalProblems(template, placeholders));
  const slotNames = new Set(placeholders.map((slot) => slot.name));
  const uses = new Set([...slotNames, ...mentionedPlaceholders(template)]);
  // A list whose joined value the template reads must fit; one it only reads per file need not.
  const joinedUses = new Set(
    [...mentionedPlaceholders(template)].concat(
      placeholders.filter((slot) => slot.form !== 'word').map((slot) => slot.name),
    ),
  );
  const formats = {
    FILES: options.filesFormat ?? '{path}',
    ATTACHMENTS: options.attachmentsFormat ?? '{path}',
  };
  const compiledFormats = new Map<string, CompiledFilesFormat>();
  for (const name of LIST_PLACEHOLDERS) {
    const asWord = placeholders.some((slot) => slot.name === name && slot.form === 'word');
    if (!asWord) continue;
    const setting: TemplateIssue['setting'] =
      name === 'FILES' ? 'files_format' : 'attachments_format';
    const compiled = compileFilesFormat(formats[name as 'FILES'], name, setting);
    compiledFormats.set(name, compiled);
    problems.push(...compiled.problems.map((problem) => ({ ...problem, setting })));
  }

  // Literal text, then alternately a slot's text (or a function of the values) and the text after it.
  const pieces: (string | ((values: PlaceholderValues) => string))[] = [];
  let last = 0;
  for (const slot of scanned.slots) {
    pieces.push(template.slice(last, slot.start));
    pieces.push(slotText(slot, slot.form === 'word' ? compiledFormats.get(slot.name) : undefined));
    last = slot.end;
  }
  pieces.push(template.slice(last));
  const constant = pieces.every((piece) => typeof piece === 'string')
    ? (pieces as string[]).join('')
    : undefined;
  const direct = directWords(template);

  return {
    problems,
    uses,
    render(values) {
      for (const name of slotNames) {
        if (!isSupportedPlaceholder(name)) throw unknownPlaceholder(name);
      }
      const problem = problems[0];
      if (problem) {
        throw new ProviderError(`${problem.setting}: ${problem.message}`, {
          retryable: false,
          hint: problem.hint,
        });
      }
      for (const name of slotNames) {
        if (values[name as Placeholder] === undefined) throw noValue(name);
      }
      const variables = placeholderVariables(values, uses, joinedUses, formats);
      const command =
        constant ??
        pieces.map((piece) => (typeof piece === 'string' ? piece : piece(values))).join('');
      const bytes = Buffer.byteLength(command) + 1;
      if (bytes > MAX_ARGUMENT_BYTES) {
        throw new ProviderError(
          `the rendered command is ${bytes} bytes, over the ${MAX_ARGUMENT_BYTES}-byte limit of one command-line argument (Linux MAX_ARG_STRLEN)`,
          {
            retryable: false,
            hint: 'shorten command_template, or pass the case files through {INPUT_FILE} (the request as JSON) instead of {FILES}',
          },
        );
      }
      return direct === undefined
        ? { command, variables }
        : { command, variables, argv: directArgv(direct, values) };
    },
  };
}

/** What a slot is written as: a variable reference, per-file references, or an escape's `{NAME}`. */
function slotText(
  slot: TemplateSlot,
  format: CompiledFilesFormat | undefined,
): string | ((values: PlaceholderValues) => string) {
  if (slot.kind === 'escape') return `{${slot.name}}`;
  if (format !== undefined) {
    return (values) => {
      const paths = values[slot.name as Placeholder] as readonly string[];
      const items = paths.map((_, index) => format.render(index + 1));
      return inBackquotes(items.join(' '), slot.backquotes);
    };
  }
  return inBackquotes(reference(variableName(slot.name), slot.form), slot.backquotes);
}

/** `declare -i X`, `local -n ref`…: an option giving a variable the integer or nameref attribute. */
const ATTRIBUTE_DECLARATION =
  /(?<![\w-])(?:declare|typeset|local)(?:\s+[-+][A-Za-z]+)*?\s+[-+][A-Za-z]*[in]/;

/**
 * Refuses every placeholder of a template that declares an integer or nameref
 * variable: bash evaluates what is later assigned to it (`X={PROMPT}` after
 * `declare -i X`), and which assignment that is cannot be told from here.
 */
function refuseAfterAttributes(template: string, placeholders: readonly TemplateSlot[]): void {
  const match = ATTRIBUTE_DECLARATION.exec(template);
  if (match === null) return;
  const start = match.index;
  for (const slot of placeholders) {
    slot.refusal ??= { kind: 'declared-attribute', start, end: start + match[0].length };
  }
}

/** One problem per refused construct, naming every supported placeholder in it. */
function refusalProblems(template: string, placeholders: readonly TemplateSlot[]): TemplateIssue[] {
  const groups = new Map<string, { names: string[]; slot: TemplateSlot }>();
  for (const slot of placeholders) {
    const refusal = slot.refusal;
    if (refusal === undefined || !isSupportedPlaceholder(slot.name)) continue;
    const key = `${refusal.kind} ${refusal.start} ${refusal.end}`;
    const group = groups.get(key) ?? { names: [], slot };
    if (!group.names.includes(slot.name)) group.names.push(slot.name);
    groups.set(key, group);
  }
  return [...groups.values()].map(({ names, slot }) => ({
    setting: 'command_template',
    ...refusalProblem(names, slot.refusal!, template),
  }));
}

/**
 * The `AGENTV_*` variables of a call. Every value given is set, except the
 * file placeholders' paths unless the template uses them (their files exist only
 * then). A value that cannot be passed (NUL byte, too long) is an error when the
 * template uses it, and is left out otherwise.
 */
function placeholderVariables(
  values: PlaceholderValues,
  uses: ReadonlySet<string>,
  joinedUses: ReadonlySet<string>,
  formats: { FILES: string; ATTACHMENTS: string },
): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const name of SUPPORTED_PLACEHOLDERS) {
    const value = values[name];
    if (value === undefined) continue;
    if (typeof value === 'string') {
      if (FILE_PLACEHOLDERS.includes(name) && !uses.has(name)) continue;
      setVariable(variables, name, variableName(name), value, uses.has(name));
      continue;
    }
    variables[`${variableName(name)}_COUNT`] = String(value.length);
    let joined = '';
    const format = formats[name as 'FILES'];
    for (let index = 0; index < value.length; index++) {
      const path = value[index]!;
      setVariable(variables, name, itemVariableName(name, index + 1), path, uses.has(name));
      setVariable(
        variables,
        name,
        itemVariableName(name, index + 1, true),
        basename(path),
        uses.has(name),
      );
      joined += (index === 0 ? '' : ' ') + renderFileFormat(format, path);
    }
    setVariable(variables, name, variableName(name), joined, joinedUses.has(name));
  }
  return variables;
}

function setVariable(
  variables: Record<string, string>,
  name: string,
  variable: string,
  value: string,
  required: boolean,
): void {
  if (value.includes('\0')) {
    if (!required) return;
    throw new ProviderError(
      `the value of {${name}} contains a NUL byte, which no command argument or environment variable can carry`,
      {
        retryable: false,
        hint: `use ${fileAlternative(name)} in command_template so the command reads it from a file`,
      },
    );
  }
  // Most values are far below the limit: measure bytes only when the length leaves doubt.
  const room = MAX_ARGUMENT_BYTES - variable.length - 2;
  if (value.length * 3 > room) {
    const bytes = Buffer.byteLength(value);
    if (bytes > room) {
      if (!required) return;
      throw new ProviderError(
        `the value of {${name}} is ${bytes} bytes, over the ${room} bytes the environment variable ${variable} can hold (Linux MAX_ARG_STRLEN: ${MAX_ARGUMENT_BYTES} bytes for NAME=value)`,
        {
          retryable: false,
          hint: `pass long values through files: use ${fileAlternative(name)} in command_template`,
        },
      );
    }
  }
  variables[variable] = value;
}

function noValue(name: string): ProviderError {
  if (name === 'WORKSPACE') {
    return new ProviderError('{WORKSPACE} has no value: the case has no workspace', {
      retryable: false,
      hint: 'give the eval file (or the case) a workspace: block (README, "Workspaces"), or remove {WORKSPACE} from command_template',
    });
  }
  if (name === 'EVAL_DIR') {
    return new ProviderError(
      '{EVAL_DIR} has no value: the call names no eval file (a batch of cases from several eval files, or a library call without one)',
      {
        retryable: false,
        hint: 'name the file by an absolute path, or run the cases of each eval file in their own batch',
      },
    );
  }
  return new ProviderError(`placeholder {${name}} has no value`, { retryable: false });
}

function unknownPlaceholder(name: string): ProviderError {
  return new ProviderError(`unknown placeholder {${name}} in command_template`, {
    retryable: false,
    hint: `supported placeholders: ${formatSupportedPlaceholders()}; write {{${name}}} for a literal {${name}}`,
  });
}

const FILE_FORMAT_TOKEN = /\{path\}|\{basename\}/g;

/** Renders one file through a `files_format`: `{path}` is the absolute path, `{basename}` its file name. */
export function renderFileFormat(format: string, path: string): string {
  // One pass with a replacer function: a path containing `{basename}` or `$&`
  // must come out as written, not be substituted again or read as a pattern.
  return format.replace(FILE_FORMAT_TOKEN, (token) => (token === '{path}' ? path : basename(path)));
}

function fileAlternative(name: string): string {
  return name === 'PROMPT' ? '{PROMPT_FILE}' : '{INPUT_FILE} (the request as JSON)';
}
