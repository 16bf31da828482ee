import type { ProviderRegistry, ResolvedTarget, TargetFinding } from '@agentv/core';

/** The start of the message of an unknown-provider finding; `agentv validate` upgrades it when a checked eval file uses the target. */
export const UNKNOWN_PROVIDER = 'unknown provider';
/** Ends the unknown-provider warning; dropped when the warning becomes an error. */
export const CANNOT_RUN_NOTE = '; this target cannot run with this AgentV';

const UNRESOLVED = /\$\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}/;

/**
 * Checks one target the way a run would, but for `agentv validate`: settings
 * problems of a known provider are errors; a provider this AgentV does not
 * have (`codex`, `vscode`, a typo) and unset `${{ VAR }}` values are warnings,
 * since a file may define targets that only some machines, or no run at all,
 * use. Settings that still hold an unset placeholder are not checked.
 */
export function createTargetInspector(
  registry: ProviderRegistry,
): (target: ResolvedTarget) => TargetFinding[] {
  return (target) => {
    const findings: TargetFinding[] = [];
    const missing = target.missingVariables ?? [];
    if (missing.length > 0) {
      const field = fieldHolding(target.settings, missing[0]!);
      findings.push({
        severity: 'warning',
        ...(field === undefined ? {} : { field }),
        message: `needs environment variable(s) ${missing.join(', ')}, which are not set`,
        hint: `set ${missing.join(', ')} in your shell or in a .env file; a run that uses this target fails until then`,
      });
    }
    if (!registry.has(target.provider)) {
      findings.push({
        severity: 'warning',
        field: 'provider',
        message: `${UNKNOWN_PROVIDER} "${target.provider}"${CANNOT_RUN_NOTE}`,
        hint: `use one of: ${registry.kinds().join(', ')}, or leave it for runs that do not use it`,
      });
      return findings;
    }
    for (const problem of registry.validate(target)) {
      const value = valueAtField(target.settings, problem.field);
      if (typeof value === 'string' && UNRESOLVED.test(value)) continue;
      findings.push({
        severity: 'error',
        field: problem.field,
        message: `${problem.field}: ${problem.message}`,
        ...(problem.hint === undefined ? {} : { hint: problem.hint }),
      });
    }
    return findings;
  };
}

function valueAtField(settings: Record<string, unknown>, field: string): unknown {
  let current: unknown = settings;
  for (const key of field.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** The dotted key of the first string in `settings` that uses `${{ name }}`. */
function fieldHolding(settings: Record<string, unknown>, name: string): string | undefined {
  const placeholder = new RegExp(`\\$\\{\\{\\s*${name}\\s*\\}\\}`);
  const search = (value: unknown, prefix: string[]): string | undefined => {
    if (typeof value === 'string') return placeholder.test(value) ? prefix.join('.') : undefined;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    for (const [key, entry] of Object.entries(value)) {
      const found = search(entry, [...prefix, key]);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return search(settings, []) || undefined;
}
