/**
 * The environment variables that carry placeholder values to a command:
 * `{NAME}` is `$AGENTV_NAME`; a list placeholder (`{FILES}`, `{ATTACHMENTS}`)
 * also has `AGENTV_FILES_COUNT`, and per file (from 1) `AGENTV_FILES_<n>` (its
 * path) and `AGENTV_FILES_<n>_BASENAME`.
 */
export function variableName(name: string): string {
  return `AGENTV_${name}`;
}

/** `AGENTV_FILES_<n>` (or `AGENTV_FILES_<n>_BASENAME`): file `n` (from 1) of a list placeholder. */
export function itemVariableName(name: string, index: number, basename = false): string {
  return `AGENTV_${name}_${index}${basename ? '_BASENAME' : ''}`;
}

const NAMES =
  'PROMPT_FILE|PROMPT|GUIDELINES|EVAL_ID|ATTEMPT|REPEAT|FILES|ATTACHMENTS|OUTPUT_FILE|INPUT_FILE|WORKSPACE|EVAL_DIR|TURN|CONVERSATION_ID|CONVERSATION_FILE';

/** A variable AgentV sets for a call (so a target's `env` must not set it). */
const AGENTV_VARIABLE = new RegExp(`^AGENTV_(?:${NAMES})(?:_COUNT|_[0-9]+(?:_BASENAME)?)?$`);

const MENTION = new RegExp(`\\bAGENTV_(${NAMES})`, 'g');

/** True for the name of a variable AgentV sets for every call. */
export function isAgentvVariable(name: string): boolean {
  return AGENTV_VARIABLE.test(name);
}

/**
 * The placeholders whose variables `template` names directly (`"$AGENTV_PROMPT"`
 * inside `sh -c '…'`, `$AGENTV_OUTPUT_FILE` in a script line): those count as
 * used, so their values are prepared like the placeholder's.
 */
export function mentionedPlaceholders(template: string): Set<string> {
  const names = new Set<string>();
  for (const match of template.matchAll(MENTION)) names.add(match[1]!);
  return names;
}

/**
 * `env` without the variables AgentV sets per call, so a variable left over from
 * an outer run (an agent that runs AgentV) never reaches a command as if it were this call's.
 */
export function withoutAgentvVariables(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  const clean: Record<string, string | undefined> = {};
  for (const key of Object.keys(env)) {
    if (!(key.startsWith('AGENTV_') && isAgentvVariable(key))) clean[key] = env[key];
  }
  return clean;
}
