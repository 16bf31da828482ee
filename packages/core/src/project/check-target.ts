import type { Issue } from '../errors/input-issue.js';
import type { ProviderRegistry } from '../provider/provider-registry.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import { targetSettingsIssue } from '../provider/target-settings-issue.js';
import { UNRESOLVED_DELEGATION } from '../targets/upstream-target-keys.js';
import { didYouMean } from '../util/did-you-mean.js';
import { hasPlaceholder, usesVariable } from '../util/env-placeholder.js';
import { isRecord, valueAt } from '../util/records.js';

/** How severe each kind of target problem is, decided by the caller before checking. */
export interface TargetPolicy {
  /**
   * A `provider:` this AgentV does not have: an error for a target a run (or a
   * checked eval file) uses, a warning for one a file merely defines.
   */
  unknownProvider: Issue['severity'];
  /** Unset `${{ VAR }}` values: an error for a target a run uses, a warning in validate. */
  missingVariables: Issue['severity'];
  /** The eval files that use the target, named in the unknown-provider hint. */
  usedBy?: readonly string[];
}

/** What `agentv eval` requires of the targets it runs. */
export const RUN_TARGET_POLICY: TargetPolicy = {
  unknownProvider: 'error',
  missingVariables: 'error',
};

/**
 * Checks one target: its `${{ VAR }}` values are set, its provider exists and
 * accepts its settings (`ProviderFactory.validate`; settings still holding an
 * unset placeholder are not checked, the unset variable is the problem).
 * Issues name the target and carry the `path` of the setting they are about
 * (relative to the target); the caller adds the file location.
 */
export function checkTarget(
  target: ResolvedTarget,
  registry: ProviderRegistry,
  policy: TargetPolicy,
): Issue[] {
  const issues: Issue[] = [];
  const missing = target.missingVariables ?? [];
  if (missing.length > 0) {
    const names = missing.join(', ');
    const path = pathHolding(target.settings, missing[0]!);
    issues.push({
      severity: policy.missingVariables,
      ...(path === undefined ? {} : { path }),
      target: target.name,
      ...(policy.missingVariables === 'error'
        ? {
            message: `uses environment variable(s) ${names}, which are not set`,
            hint: `set ${names} in your shell or in a .env file next to the eval file`,
          }
        : {
            message: `needs environment variable(s) ${names}, which are not set`,
            hint: `set ${names} in your shell or in a .env file; a run that uses this target fails until then`,
          }),
    });
  }
  // `use_target: ${{ VAR }}` with VAR unset: which target it stands for is not known yet.
  if (target.provider === UNRESOLVED_DELEGATION && missing.length > 0) return issues;
  if (!registry.has(target.provider)) {
    const kinds = didYouMean(target.provider, registry.kinds());
    const error = policy.unknownProvider === 'error';
    const usedBy = policy.usedBy?.length ? ` (used by ${policy.usedBy.join(', ')})` : '';
    issues.push({
      severity: policy.unknownProvider,
      path: ['provider'],
      target: target.name,
      message: `unknown provider "${target.provider}"${error ? '' : '; this target cannot run with this AgentV'}`,
      hint: error ? `${kinds}${usedBy}` : `${kinds}, or leave it for runs that do not use it`,
    });
    return issues;
  }
  for (const problem of registry.validate(target)) {
    const path = problem.path ?? [];
    const value = valueAt(target.settings, path);
    if (hasPlaceholder(value)) continue;
    issues.push(targetSettingsIssue(problem, target));
  }
  return issues;
}

/** The path of the first string in `settings` that uses `${{ name }}`. */
function pathHolding(settings: Record<string, unknown>, name: string): string[] | undefined {
  const search = (value: unknown, prefix: string[]): string[] | undefined => {
    if (typeof value === 'string') return usesVariable(value, name) ? prefix : undefined;
    if (!isRecord(value)) return undefined;
    for (const [key, entry] of Object.entries(value)) {
      const found = search(entry, [...prefix, key]);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const found = search(settings, []);
  return found === undefined || found.length === 0 ? undefined : found;
}
