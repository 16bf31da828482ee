import { basename } from 'node:path';
import { ProviderError } from '@agentv/core';
import { shellQuote } from './shell-quote.js';

/** The placeholders a `command_template` may use (SPEC 4.2), without braces. */
export const SUPPORTED_PLACEHOLDERS = [
  'PROMPT',
  'PROMPT_FILE',
  'GUIDELINES',
  'EVAL_ID',
  'ATTEMPT',
  'REPEAT',
  'FILES',
  'ATTACHMENTS',
  'OUTPUT_FILE',
  'INPUT_FILE',
] as const;

export type Placeholder = (typeof SUPPORTED_PLACEHOLDERS)[number];

/**
 * Files rendered through a `files_format` / `attachments_format` such as
 * `--file {path}`: outside the template's quotes the format's literal text is
 * part of the command line as written and only `{path}` / `{basename}` are
 * quoted (as AgentV renders them), for the quotes they stand in within the
 * format (`--file="{path}"` works); inside the template's `"..."` or `'...'`
 * each rendered file is one quoted item.
 */
export interface FormattedFiles {
  format: string;
  paths: readonly string[];
}

/**
 * Values to substitute. A string becomes one shell word; a list becomes one
 * word per element, space separated (an empty list renders as nothing);
 * `FormattedFiles` renders each path through its format, space separated.
 */
export type PlaceholderValues = Partial<
  Record<Placeholder, string | readonly string[] | FormattedFiles>
>;

/**
 * Linux `MAX_ARG_STRLEN`: the longest single argv string, terminating NUL
 * included. The whole rendered command is one argument of `sh -c`.
 */
export const MAX_ARGUMENT_BYTES = 128 * 1024;

// `{{NAME}}` is the escape for a literal `{NAME}`. A `$` before the brace makes
// it shell parameter expansion (`${HOME}`), which is left to the shell.
const TOKEN_PATTERN = /\{\{([A-Z][A-Z0-9_]*)\}\}|(?<!\$)\{([A-Z][A-Z0-9_]*)\}/g;

/** True when `name` is one of `SUPPORTED_PLACEHOLDERS`. */
export function isSupportedPlaceholder(name: string): name is Placeholder {
  return (SUPPORTED_PLACEHOLDERS as readonly string[]).includes(name);
}

/** `{PROMPT}, {PROMPT_FILE}, ...` for messages. */
export function formatSupportedPlaceholders(): string {
  return SUPPORTED_PLACEHOLDERS.map((name) => `{${name}}`).join(', ');
}

/**
 * The `{UPPER_CASE}` placeholders `template` uses, supported or not, each once,
 * in order of first use. Escaped `{{NAME}}` and shell `${NAME}` are not counted.
 */
export function findPlaceholders(template: string): string[] {
  const names = new Set<string>();
  for (const match of template.matchAll(TOKEN_PATTERN)) {
    if (match[2] !== undefined) names.add(match[2]);
  }
  return [...names];
}

/**
 * Substitutes every placeholder of `template` with its shell-quoted value and
 * turns each `{{NAME}}` into a literal `{NAME}`. Text outside placeholders is
 * kept as written: it is the user's shell command.
 *
 * Quoting follows where the placeholder stands, so no value can escape it:
 * bare, a value becomes one single-quoted word; inside the template's own
 * `"..."` it is escaped for double quotes (`\ $ \` "`); inside `'...'` each `'`
 * becomes `'\''`. Templates written for agentv-eval-v2 with `"{PROMPT}"` keep working.
 *
 * Throws a non-retryable `ProviderError` when a placeholder is unknown or has no
 * value, when a value contains a NUL byte (argv cannot carry one), or when the
 * rendered command exceeds `MAX_ARGUMENT_BYTES`.
 */
export function renderCommandTemplate(template: string, values: PlaceholderValues): string {
  return compileCommandTemplate(template)(values);
}

/** A command template read once: renders it with given values, like `renderCommandTemplate`. */
export type CompiledCommandTemplate = (values: PlaceholderValues) => string;

/**
 * Reads `template`'s quotes and placeholders once, for a template rendered for
 * every case: the returned function gives what `renderCommandTemplate` gives
 * (same values, same errors) without scanning the template again.
 */
export function compileCommandTemplate(template: string): CompiledCommandTemplate {
  // Literal text, then alternately a placeholder and the literal text after it.
  const literals: string[] = [];
  const slots: { name: string; context: QuoteContext }[] = [];
  let text = '';
  substituteInContext(
    template,
    (name, context) => {
      literals.push(text);
      slots.push({ name, context });
      text = '';
      return '';
    },
    undefined,
    (piece) => {
      text += piece;
    },
  );
  literals.push(text);
  return (values) => renderSlots(literals, slots, values);
}

function renderSlots(
  literals: readonly string[],
  slots: readonly { name: string; context: QuoteContext }[],
  values: PlaceholderValues,
): string {
  const sizes = new Map<string, number>();
  let rendered = literals[0]!;
  for (let index = 0; index < slots.length; index++) {
    const { name, context } = slots[index]!;
    const word = renderValue(name, values, context);
    sizes.set(name, (sizes.get(name) ?? 0) + Buffer.byteLength(word));
    rendered += word + literals[index + 1]!;
  }
  const bytes = Buffer.byteLength(rendered) + 1;
  if (bytes > MAX_ARGUMENT_BYTES) {
    const largest = [...sizes.entries()].sort((a, b) => b[1] - a[1])[0];
    const culprit = largest ? `; {${largest[0]}} alone is ${largest[1]} bytes` : '';
    throw new ProviderError(
      `the rendered command is ${bytes} bytes, over the ${MAX_ARGUMENT_BYTES}-byte limit of one command-line argument (Linux MAX_ARG_STRLEN)${culprit}`,
      {
        retryable: false,
        hint: `pass long values through files: use ${fileAlternative(largest?.[0] ?? 'PROMPT')} in command_template`,
      },
    );
  }
  return rendered;
}

/** Where a placeholder stands in the shell command: bare, or inside the template's quotes. */
type QuoteContext = 'bare' | 'single' | 'double';

const TOKEN_AT = new RegExp(TOKEN_PATTERN.source, 'y');
// In a files format: group 1 never matches (formats have no escape), group 2 is the token.
const FILE_TOKEN_AT = /(?!)()|\{(path|basename)\}/y;

/**
 * Walks `template` as `sh` would read its quotes and replaces each placeholder
 * with `render(name, context)`; `{{NAME}}` becomes a literal `{NAME}`.
 */
function substituteInContext(
  template: string,
  render: (name: string, context: QuoteContext) => string,
  tokenAt: RegExp = TOKEN_AT,
  onLiteral?: (text: string) => void,
): string {
  let output = '';
  let context: QuoteContext = 'bare';
  let index = 0;
  while (index < template.length) {
    tokenAt.lastIndex = index;
    const token = tokenAt.exec(template);
    if (token) {
      if (token[1] !== undefined) {
        output += `{${token[1]}}`;
        onLiteral?.(`{${token[1]}}`);
      } else {
        output += render(token[2]!, context);
      }
      index += token[0].length;
      continue;
    }
    const char = template[index]!;
    if (char === '\\' && context !== 'single') {
      // An escaped character never opens or closes a quote.
      output += template.slice(index, index + 2);
      onLiteral?.(template.slice(index, index + 2));
      index += 2;
      continue;
    }
    if (char === "'" && context !== 'double') context = context === 'single' ? 'bare' : 'single';
    else if (char === '"' && context !== 'single')
      context = context === 'double' ? 'bare' : 'double';
    output += char;
    onLiteral?.(char);
    index++;
  }
  return output;
}

function quoteFor(context: QuoteContext, value: string): string {
  if (context === 'single') return value.replaceAll("'", "'\\''");
  if (context === 'double') return value.replace(/[\\$`"]/g, '\\$&');
  return shellQuote(value);
}

function renderValue(name: string, values: PlaceholderValues, context: QuoteContext): string {
  if (!isSupportedPlaceholder(name)) {
    throw new ProviderError(`unknown placeholder {${name}} in command_template`, {
      retryable: false,
      hint: `supported placeholders: ${formatSupportedPlaceholders()}; write {{${name}}} for a literal {${name}}`,
    });
  }
  const value = values[name];
  if (value === undefined) {
    throw new ProviderError(`placeholder {${name}} has no value`, { retryable: false });
  }
  const items: readonly string[] =
    typeof value === 'string' ? [value] : isFormattedFiles(value) ? value.paths : value;
  for (const item of items) {
    if (item.includes('\0')) {
      throw new ProviderError(
        `the value of {${name}} contains a NUL byte, which cannot be passed as a command-line argument`,
        {
          retryable: false,
          hint: `use ${fileAlternative(name)} in command_template so the command reads it from a file`,
        },
      );
    }
  }
  if (isFormattedFiles(value)) {
    return value.paths
      .map((path) =>
        context === 'bare'
          ? // The format is command-line text; its tokens are quoted where they stand in it.
            substituteInContext(
              value.format,
              (token, formatContext) =>
                quoteFor(formatContext, token === 'path' ? path : basename(path)),
              FILE_TOKEN_AT,
            )
          : quoteFor(context, renderFileFormat(value.format, path)),
      )
      .join(' ');
  }
  return items.map((item) => quoteFor(context, item)).join(' ');
}

function isFormattedFiles(
  value: string | readonly string[] | FormattedFiles,
): value is FormattedFiles {
  return typeof value === 'object' && !Array.isArray(value);
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
