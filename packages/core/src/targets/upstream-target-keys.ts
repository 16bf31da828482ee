// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is targets-file syntax, not a JS template
import type { Issue } from '../errors/input-issue.js';
import { hasPlaceholder } from '../util/env-placeholder.js';
import { isRecord } from '../util/records.js';

/**
 * Keys AgentV 2.x–4.42 writes in targets files that have another name here:
 * our key → upstream's. `agentv validate` locates them as written.
 */
export const UPSTREAM_TARGET_KEY_NAMES: Readonly<Record<string, string>> = {
  judge_target: 'grader_target',
  command_template: 'command',
};

/** Whether `written` (snake_case) is upstream's name of our key `ours`. */
export function isUpstreamTargetKey(written: string, ours: string): boolean {
  return UPSTREAM_TARGET_KEY_NAMES[ours] === written;
}

/** The provider a target delegating through an unset `use_target: ${{ VAR }}` is given. */
export const UNRESOLVED_DELEGATION = 'use_target';

/**
 * A target's settings (snake_case, as written) with AgentV 4.42's spellings
 * read as ours: `grader_target` → `judge_target`; for `cli` targets
 * `command` → `command_template`, `cli_verbose` → `verbose`, and a
 * `healthcheck` without `type` typed by its `url` or `command`. Both
 * spellings of one key are an error (`path` is the setting's, relative to
 * the target). The same object when nothing is renamed.
 */
export function readUpstreamTargetKeys(settings: Record<string, unknown>): {
  settings: Record<string, unknown>;
  issues: Issue[];
} {
  const issues: Issue[] = [];
  let result = settings;
  const rename = (from: string, to: string, within: Record<string, unknown>, at: string[]) => {
    if (within[from] === undefined) return within;
    if (within[to] !== undefined) {
      issues.push({
        severity: 'error',
        path: [...at, from],
        message: `both "${from}" (AgentV 4.x) and "${to}" are set`,
        hint: `keep one: \`${to}:\``,
      });
      return within;
    }
    const { [from]: value, ...rest } = within;
    return { ...rest, [to]: value };
  };
  result = rename('grader_target', 'judge_target', result, []);
  if (result.fallback_targets !== undefined) {
    issues.push({
      severity: 'error',
      path: ['fallback_targets'],
      message:
        'fallback_targets (AgentV 4.x) is not supported: a failed call is retried on the same target',
      hint: 'remove it; set `max_retries` on the target, or run the other target with `--target NAME`',
    });
  }
  if (result.provider === 'cli') {
    result = rename('command', 'command_template', result, []);
    result = rename('cli_verbose', 'verbose', result, []);
    if (isRecord(result.healthcheck)) {
      let healthcheck = rename('command', 'command_template', result.healthcheck, ['healthcheck']);
      if (healthcheck.type === undefined) {
        // AgentV 4.x tells the kinds apart by their keys.
        if (healthcheck.url !== undefined) healthcheck = { type: 'http', ...healthcheck };
        else if (healthcheck.command_template !== undefined) {
          healthcheck = { type: 'command', ...healthcheck };
        }
      }
      if (healthcheck !== result.healthcheck) result = { ...result, healthcheck };
    }
  }
  return { settings: result, issues };
}

/** One target of a file while it is prepared: its settings and the copy the schema checks. */
export interface DelegatingTarget {
  settings: Record<string, unknown>;
  checked: unknown;
  missing: string[];
  substituted: string[];
}

/**
 * Resolves AgentV 4.x's `use_target: NAME` (a target that stands for another
 * one of the same file, often `use_target: ${{ AGENT_TARGET }}`): the target
 * takes the provider and settings of the target it names (following chains),
 * keeping its own name and the keys it sets itself. An unset variable leaves
 * it unusable, reported like any unset variable when a run uses it; an
 * unknown name or a loop is an error at `use_target` (index, path).
 */
export function resolveUseTargets(targets: DelegatingTarget[]): { index: number; issue: Issue }[] {
  const problems: { index: number; issue: Issue }[] = [];
  const byName = new Map<string, number>();
  targets.forEach((target, index) => {
    if (typeof target.settings.name === 'string' && !byName.has(target.settings.name)) {
      byName.set(target.settings.name, index);
    }
  });
  const resolved = targets.map((target) => ({ ...target }));
  targets.forEach((target, index) => {
    const useTarget = target.settings.use_target;
    if (useTarget === undefined) return;
    const own = withoutDelegation(target.settings);
    const ownChecked = isRecord(target.checked) ? withoutDelegation(target.checked) : {};
    if (typeof useTarget !== 'string' || useTarget.trim() === '' || hasPlaceholder(useTarget)) {
      const unset = typeof useTarget === 'string' && hasPlaceholder(useTarget);
      if (!unset) {
        problems.push({
          index,
          issue: {
            severity: 'error',
            path: ['use_target'],
            message: 'use_target must name another target of this file',
            hint: 'write `use_target: NAME` or `use_target: ${{ VARIABLE }}`',
          },
        });
      }
      // Usable once the variable is set; until then a run using it reports the variable.
      resolved[index] = {
        ...target,
        settings: { ...target.settings, provider: UNRESOLVED_DELEGATION },
        checked: { ...ownChecked, provider: UNRESOLVED_DELEGATION },
      };
      return;
    }
    const chain = [String(target.settings.name)];
    let current = target;
    for (;;) {
      const next = current.settings.use_target;
      if (typeof next !== 'string') break;
      if (hasPlaceholder(next)) {
        // A chain through an unset variable: as unusable as its first link.
        resolved[index] = {
          ...target,
          settings: { ...target.settings, provider: UNRESOLVED_DELEGATION },
          checked: { ...ownChecked, provider: UNRESOLVED_DELEGATION },
          missing: [...new Set([...current.missing, ...target.missing])].sort(),
        };
        return;
      }
      const name = next.trim();
      const at = byName.get(name);
      if (at === undefined || chain.includes(name)) {
        problems.push({
          index,
          issue: {
            severity: 'error',
            path: ['use_target'],
            message:
              at === undefined
                ? `use_target names "${name}", which is not a target of this file`
                : `use_target goes round in a loop: ${[...chain, name].join(' -> ')}`,
            hint: 'point use_target at a target that has a `provider:`',
          },
        });
        resolved[index] = {
          ...target,
          checked: { ...ownChecked, provider: UNRESOLVED_DELEGATION },
        };
        return;
      }
      chain.push(name);
      current = targets[at]!;
    }
    const delegate = withoutDelegation(current.settings);
    const delegateChecked = isRecord(current.checked) ? withoutDelegation(current.checked) : {};
    resolved[index] = {
      settings: { ...delegate, ...own },
      checked: { ...delegateChecked, ...ownChecked },
      missing: [...new Set([...current.missing, ...target.missing])].sort(),
      substituted: [...new Set([...current.substituted, ...target.substituted])],
    };
  });
  resolved.forEach((target, index) => {
    Object.assign(targets[index]!, target);
  });
  return problems;
}

function withoutDelegation(settings: Record<string, unknown>): Record<string, unknown> {
  const { use_target: _, ...rest } = settings;
  return rest;
}
