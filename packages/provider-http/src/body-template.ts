import type { ProviderRequest } from '@agentv/core/provider-utils';

/**
 * The placeholders a `body` string may use, without braces: the `cli`
 * provider's, minus its file placeholders (an HTTP call has no temp files),
 * plus `{INPUT_MESSAGES}`, `{INPUT}` and a conversation's `{MESSAGES}` (the
 * conversation so far, this turn's user message last: the same list as
 * `{INPUT_MESSAGES}`), `{TURN}` and `{CONVERSATION_ID}`.
 *
 * Text placeholders (`PROMPT`, `GUIDELINES`, `EVAL_ID`, `CONVERSATION_ID`) become strings;
 * `ATTEMPT`, `REPEAT` and `TURN` become numbers when they are a whole string value,
 * else their digits. Structured placeholders (`STRUCTURED_PLACEHOLDERS`) are
 * JSON arrays or objects and must be a whole string value.
 */
export const BODY_PLACEHOLDERS = [
  'PROMPT',
  'GUIDELINES',
  'EVAL_ID',
  'ATTEMPT',
  'REPEAT',
  'FILES',
  'ATTACHMENTS',
  'INPUT_MESSAGES',
  'INPUT',
  'MESSAGES',
  'TURN',
  'CONVERSATION_ID',
] as const;

export type BodyPlaceholder = (typeof BODY_PLACEHOLDERS)[number];

/** Placeholders whose value is a JSON array or object: only usable as a whole string value. */
export const STRUCTURED_PLACEHOLDERS: readonly BodyPlaceholder[] = [
  'FILES',
  'ATTACHMENTS',
  'INPUT_MESSAGES',
  'INPUT',
  'MESSAGES',
];

/** `cli` placeholders that name files; they have no meaning in an HTTP body. */
export const FILE_PLACEHOLDERS = ['PROMPT_FILE', 'INPUT_FILE', 'OUTPUT_FILE'] as const;

// `{{NAME}}` is the escape for a literal `{NAME}`; `${{NAME}}` is an unset `${{ VAR }}` left by the loader.
const TOKEN_PATTERN = /\{\{([A-Z][A-Z0-9_]*)\}\}|(?<!\$)\{([A-Z][A-Z0-9_]*)\}/g;
const WHOLE_PLACEHOLDER = /^\{([A-Z][A-Z0-9_]*)\}$/;

export function isBodyPlaceholder(name: string): name is BodyPlaceholder {
  return (BODY_PLACEHOLDERS as readonly string[]).includes(name);
}

/** A placeholder found in a body string, and where: the path of keys and indexes to the string. */
export interface FoundPlaceholder {
  name: string;
  path: (string | number)[];
  /** True when the string is exactly this one placeholder. */
  whole: boolean;
}

/** Every `{NAME}` used by the strings of `body` (keys are not templates), in document order. */
export function findBodyPlaceholders(body: unknown): FoundPlaceholder[] {
  const found: FoundPlaceholder[] = [];
  visitStrings(body, [], (text, path) => {
    const whole = WHOLE_PLACEHOLDER.test(text);
    for (const match of text.matchAll(TOKEN_PATTERN)) {
      if (match[2] !== undefined) found.push({ name: match[2], path, whole });
    }
  });
  return found;
}

/** The value of each placeholder for one request. */
export function placeholderValues(request: ProviderRequest): Record<BodyPlaceholder, unknown> {
  const messages = request.chatPrompt.map((message) => ({
    role: message.role,
    ...(message.name === undefined ? {} : { name: message.name }),
    content: message.content,
  }));
  return {
    PROMPT: request.question,
    GUIDELINES: request.guidelines,
    EVAL_ID: request.evalCaseId,
    ATTEMPT: request.attempt,
    REPEAT: request.repeat ?? 1,
    FILES: [...request.guidelineFiles, ...request.inputFiles],
    ATTACHMENTS: [...request.inputFiles],
    INPUT_MESSAGES: messages,
    MESSAGES: messages,
    // A case that is no conversation is a conversation of one turn.
    TURN: request.conversation?.turn ?? 1,
    CONVERSATION_ID: request.conversation?.id ?? request.evalCaseId,
    INPUT: {
      id: request.evalCaseId,
      question: request.question,
      guidelines: request.guidelines,
      guideline_files: request.guidelineFiles,
      input_files: request.inputFiles,
      input_messages: messages,
      ...(request.expectedOutcome === undefined
        ? {}
        : { expected_outcome: request.expectedOutcome }),
    },
  };
}

/**
 * A copy of `body` with every placeholder replaced: a string that is exactly
 * one placeholder becomes its value (a number, array or object for those
 * placeholders), one with text around placeholders gets their text inserted,
 * and `{{NAME}}` becomes a literal `{NAME}`. Serialising the result with
 * `JSON.stringify` escapes every value; nothing is quoted by hand.
 */
export function renderBody(body: unknown, values: Record<BodyPlaceholder, unknown>): unknown {
  const render = (node: unknown): unknown => {
    if (typeof node === 'string') return renderString(node, values);
    if (Array.isArray(node)) return node.map(render);
    if (typeof node === 'object' && node !== null) {
      return Object.fromEntries(Object.entries(node).map(([key, entry]) => [key, render(entry)]));
    }
    return node;
  };
  return render(body);
}

function renderString(text: string, values: Record<BodyPlaceholder, unknown>): unknown {
  const whole = WHOLE_PLACEHOLDER.exec(text);
  if (whole && isBodyPlaceholder(whole[1]!)) return values[whole[1]];
  return text.replace(TOKEN_PATTERN, (token, escaped: string | undefined, name: string) => {
    if (escaped !== undefined) return `{${escaped}}`;
    if (!isBodyPlaceholder(name)) return token;
    const value = values[name];
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

function visitStrings(
  node: unknown,
  path: (string | number)[],
  visit: (text: string, path: (string | number)[]) => void,
): void {
  if (typeof node === 'string') {
    visit(node, path);
  } else if (Array.isArray(node)) {
    for (const [index, entry] of node.entries()) visitStrings(entry, [...path, index], visit);
  } else if (typeof node === 'object' && node !== null) {
    for (const [key, entry] of Object.entries(node)) visitStrings(entry, [...path, key], visit);
  }
}
