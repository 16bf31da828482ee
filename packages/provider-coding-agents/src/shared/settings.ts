import type { Issue } from '@agentv/core';
import {
  assertValidSettings,
  hasPlaceholder,
  maxOutputBytes,
  type ResolvedTarget,
  settingsIssues,
} from '@agentv/core/provider-utils';
import { z } from 'zod';

/**
 * How much an agent may do without asking (an eval never answers a prompt):
 * - `full`: run any command and edit any file; the default, since each case runs in a
 *   workspace of its own (or an empty folder) — use a `workspace.docker` sandbox to contain it;
 * - `workspace_write`: edit files and run commands inside the working folder only, where the
 *   agent can enforce it (Codex's `workspace-write` sandbox);
 * - `read_only`: read and answer, change nothing.
 */
export const PERMISSION_MODES = ['full', 'workspace_write', 'read_only'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** The typed settings of a coding-agent target, the same names for every agent. */
export interface CodingAgentSettings {
  /** The CLI to run: a path (relative to the target's `baseDir`) or a command on PATH; else the adapter's. */
  executable?: string;
  model?: string;
  /** The model endpoint, e.g. `http://127.0.0.1:8080/v1`; else the agent's own default. */
  baseUrl?: string;
  /** The API key (write `${{ VAR }}`); passed to the agent in its environment, masked everywhere. */
  apiKey?: string;
  permissionMode: PermissionMode;
  /** Tools the agent may use without asking (canonical or the agent's own names). */
  allowedTools?: string[];
  /** Tools the agent must not use. */
  deniedTools?: string[];
  /** Extra arguments, placed before the prompt. */
  args: string[];
  /** Extra environment variables of the agent (they win over AgentV's). */
  env: Record<string, string>;
  /** The target's `timeout_seconds` (core reads it; `--agent-timeout` wins). */
  timeoutSeconds?: number;
  /** Most bytes of the agent's output read (`max_output_bytes`). */
  maxOutputBytes: number;
}

/** The keys of a coding-agent target besides those every target shares, for unknown-key warnings. */
export const CODING_AGENT_SETTINGS_KEYS = [
  'executable',
  'model',
  'base_url',
  'api_key',
  'permission_mode',
  'allowed_tools',
  'denied_tools',
  'args',
  'env',
] as const;

const text = (what: string) =>
  z.string({ error: `must be ${what}` }).min(1, { error: 'must not be empty' });

// Built on first use: a run without coding-agent targets never pays for it.
let schema: ReturnType<typeof buildSchema> | undefined;
const settingsSchema = () => {
  schema ??= buildSchema();
  return schema;
};

function buildSchema() {
  const stringList = z.array(z.string({ error: 'must be a string' }), {
    error: 'must be a list of strings',
  });
  return z.object({
    executable: text('a path or a command name').optional(),
    model: text('a model name').optional(),
    base_url: z
      .string({ error: 'must be a URL' })
      .refine(isHttpUrl, { error: 'must be an http:// or https:// URL' })
      .optional(),
    api_key: text('a string').optional(),
    permission_mode: z
      .enum(PERMISSION_MODES, { error: `must be one of ${PERMISSION_MODES.join(', ')}` })
      .optional(),
    allowed_tools: stringList.optional(),
    denied_tools: stringList.optional(),
    args: stringList.optional(),
    env: z
      .record(
        z.string(),
        z.union([z.string(), z.number(), z.boolean()], {
          error: 'must be a string (numbers and booleans are converted)',
        }),
        { error: 'must be a mapping of variable names to values' },
      )
      .optional(),
  });
}

const HINTS: Record<string, string> = {
  executable: 'e.g. executable: codex, or a path such as ./node_modules/.bin/codex',
  base_url: 'e.g. base_url: https://api.openai.com/v1 (the agent sends its model requests there)',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: ${{ VAR }} is targets-file syntax
  api_key: 'write api_key: ${{ OPENAI_API_KEY }} so the key stays in your environment or .env',
  permission_mode: 'full lets the agent run any command in the case workspace without asking',
  allowed_tools: 'e.g. allowed_tools: [shell, edit_file]',
  denied_tools: 'e.g. denied_tools: [web_fetch]',
  args: 'e.g. args: ["--config", "model_reasoning_effort=low"]',
  env: 'e.g. env: { RUST_LOG: info }',
};

/** Every problem of a coding-agent target's settings, found without starting the agent. */
export function validateCodingAgentSettings(target: ResolvedTarget): Issue[] {
  const issues = settingsIssues(settingsSchema(), target.settings, { hints: HINTS });
  const apiKey = target.settings.api_key;
  if (
    typeof apiKey === 'string' &&
    !hasPlaceholder(apiKey) &&
    !(target.secretValues ?? []).includes(apiKey)
  ) {
    issues.push({
      severity: 'warning',
      path: ['api_key'],
      message: 'is written in the targets file; anyone who reads the file reads the key',
      hint: HINTS.api_key,
    });
  }
  return issues;
}

/** The typed settings of a target whose settings passed `validateCodingAgentSettings`. */
export function parseCodingAgentSettings(target: ResolvedTarget): CodingAgentSettings {
  assertValidSettings(target, validateCodingAgentSettings(target));
  const parsed = settingsSchema().parse(target.settings);
  const settings: CodingAgentSettings = {
    permissionMode: parsed.permission_mode ?? 'full',
    args: parsed.args ?? [],
    env: Object.fromEntries(
      Object.entries(parsed.env ?? {}).map(([name, value]) => [name, String(value)]),
    ),
    maxOutputBytes: maxOutputBytes(target),
  };
  if (parsed.executable !== undefined) settings.executable = parsed.executable;
  if (parsed.model !== undefined) settings.model = parsed.model;
  if (parsed.base_url !== undefined) settings.baseUrl = parsed.base_url;
  if (parsed.api_key !== undefined) settings.apiKey = parsed.api_key;
  if (parsed.allowed_tools !== undefined) settings.allowedTools = parsed.allowed_tools;
  if (parsed.denied_tools !== undefined) settings.deniedTools = parsed.denied_tools;
  if (target.timeoutSeconds !== undefined) settings.timeoutSeconds = target.timeoutSeconds;
  return settings;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
