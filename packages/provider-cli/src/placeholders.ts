/** The placeholders a `command_template` may use, without braces. */
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
  'TRACE_FILE',
  'WORKSPACE',
  'EVAL_DIR',
  'TURN',
  'CONVERSATION_ID',
  'CONVERSATION_FILE',
] as const;

export type Placeholder = (typeof SUPPORTED_PLACEHOLDERS)[number];

/** Placeholders whose value is a file in the call's temp dir: they exist only when used. */
export const FILE_PLACEHOLDERS: readonly Placeholder[] = [
  'PROMPT_FILE',
  'INPUT_FILE',
  'OUTPUT_FILE',
  'TRACE_FILE',
  'CONVERSATION_FILE',
];

/** Placeholders whose value is a list of files, each rendered through a format. */
export const LIST_PLACEHOLDERS: readonly Placeholder[] = ['FILES', 'ATTACHMENTS'];

/**
 * `{{NAME}}` (group 1) is the escape for a literal `{NAME}`; `{NAME}` (group 2)
 * is a placeholder. A `$` before the brace makes it shell parameter expansion
 * (`${HOME}`), which is left to the shell.
 */
export const TOKEN_PATTERN = /\{\{([A-Z][A-Z0-9_]*)\}\}|(?<!\$)\{([A-Z][A-Z0-9_]*)\}/g;

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
