import { isRecord } from '../util/records.js';

const WHOLE_REFERENCE = /^\s*\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\s*$/;

const CLAUDE = ['executable', 'command', 'binary', 'model', 'cwd', 'log_dir', 'log_directory'];

/**
 * Settings AgentV 1.x–4.42 reads as optional environment references, by
 * provider kind (its names and ours): when the value is only `${{ VAR }}` and
 * `VAR` is unset or empty, the setting is absent instead of an error.
 * Paths are snake_case keys, nested ones dotted (`healthcheck.cwd`).
 */
export const OPTIONAL_REFERENCE_SETTINGS: Readonly<Record<string, readonly string[]>> = {
  cli: ['cwd', 'healthcheck.cwd'],
  azure: ['version', 'api_version', 'api_format'],
  'azure-openai': ['version', 'api_version', 'api_format'],
  openai: ['endpoint', 'base_url', 'api_format'],
  gemini: ['model', 'deployment', 'variant'],
  google: ['model', 'deployment', 'variant'],
  'google-gemini': ['model', 'deployment', 'variant'],
  codex: [
    'model',
    'model_reasoning_effort',
    'executable',
    'command',
    'binary',
    'cwd',
    'log_dir',
    'log_directory',
  ],
  claude: CLAUDE,
  'claude-code': CLAUDE,
  'claude-cli': CLAUDE,
  'claude-sdk': CLAUDE,
};

/**
 * `settings` (snake_case, before `${{ VAR }}` is filled in) without the
 * optional references of `provider` whose variable is unset or empty in `env`;
 * the same object when none is left out.
 */
export function dropUnsetOptionalReferences(
  settings: Record<string, unknown>,
  provider: unknown,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, unknown> {
  const paths = typeof provider === 'string' ? OPTIONAL_REFERENCE_SETTINGS[provider] : undefined;
  if (paths === undefined) return settings;
  let result = settings;
  for (const path of paths) {
    const segments = path.split('.');
    const parents: Record<string, unknown>[] = [result];
    for (const segment of segments.slice(0, -1)) {
      const next = parents.at(-1)![segment];
      if (!isRecord(next)) break;
      parents.push(next);
    }
    if (parents.length !== segments.length) continue;
    const last = segments.at(-1)!;
    const value = parents.at(-1)![last];
    const match = typeof value === 'string' ? WHOLE_REFERENCE.exec(value) : null;
    if (match === null) continue;
    const resolved = env[match[1]!];
    if (resolved !== undefined && resolved.trim() !== '') continue;
    // Copies along the path, so the settings as written stay untouched.
    let copy: Record<string, unknown> = { ...parents.at(-1)! };
    delete copy[last];
    for (let depth = segments.length - 2; depth >= 0; depth--) {
      copy = { ...parents[depth]!, [segments[depth]!]: copy };
    }
    result = copy;
  }
  return result;
}
