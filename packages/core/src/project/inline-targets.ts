import path from 'node:path';
import type { Issue } from '../errors/input-issue.js';
import type { EvalFile } from '../eval-file/eval-case.js';
import type { ProviderRegistry } from '../provider/provider-registry.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import { loadInlineTargets } from '../targets/load-targets.js';
import { targetIssuePosition } from '../targets/target-positions.js';
import { displayPath } from '../util/display-path.js';
import { sortIssues } from '../util/load-result.js';
import { checkTarget, RUN_TARGET_POLICY, type TargetPolicy } from './check-target.js';
import { targetNamesOf } from './target-names-of.js';

/** An eval file as `loadProject` holds it, as far as inline targets need. */
interface EvalFileEntry {
  path: string;
  value?: EvalFile;
  targetsFile?: string;
}

export interface InlineTargetsOptions {
  cwd: string;
  mode: 'run' | 'validate';
  providerRegistry: ProviderRegistry;
  /** Provider kind → its settings keys, for unknown-key warnings. */
  knownKeys: Record<string, readonly string[]>;
  targetOverride?: string | readonly string[];
  /** The variables `${{ VAR }}` placeholders of an eval file in `dir` are filled from. */
  env(dir: string): Promise<Record<string, string | undefined>>;
  /** validate: how to check a target, given the eval files using it (undefined: none). */
  validatePolicy(users: Set<string> | undefined): TargetPolicy;
}

/**
 * Loads the `targets:` each eval file declares (only its own cases see them)
 * and reports a name also defined in the targets file the eval file uses,
 * naming both places. Eval file → its inline targets (undefined when they have errors).
 */
export async function loadAllInlineTargets(
  evalFiles: readonly EvalFileEntry[],
  shared: ReadonlyMap<string, readonly ResolvedTarget[] | undefined>,
  options: InlineTargetsOptions,
): Promise<{ value: Map<string, ResolvedTarget[] | undefined>; issues: Issue[] }> {
  const result = new Map<string, ResolvedTarget[] | undefined>();
  const issues: Issue[] = [];
  for (const file of evalFiles) {
    if (file.value?.declaresTargets !== true) continue;
    const used = new Set<string>();
    for (const evalCase of file.value.cases) {
      for (const name of targetNamesOf(evalCase, options.targetOverride)) used.add(name);
      if (evalCase.judgeTarget !== undefined) used.add(evalCase.judgeTarget);
    }
    // Every target the file declares, also those with errors: a clash is reported next to them.
    const declared: ResolvedTarget[] = [];
    const loaded = await loadInlineTargets(file.path, {
      env: await options.env(path.dirname(file.path)),
      knownKeys: options.knownKeys,
      inspectTarget: (target: ResolvedTarget, all: readonly ResolvedTarget[]) => {
        declared.push(target);
        if (options.mode !== 'validate') return [];
        const judged = all.some(
          (other) => other.judgeTarget === target.name && used.has(other.name),
        );
        const users = used.has(target.name) || judged ? new Set([file.path]) : undefined;
        return checkTarget(target, options.providerRegistry, options.validatePolicy(users));
      },
    });
    issues.push(...loaded.issues);
    const clashes = clashIssues(declared, file.targetsFile, shared, options.cwd);
    issues.push(...clashes);
    if (clashes.length > 0 && options.mode === 'run') {
      // The file's targets cannot run, so the plan does not check them: check here what it
      // would have (the targets the run uses, and those that clash), as validate does.
      const clashing = new Set(clashes.map((issue) => issue.target));
      for (const target of declared) {
        if (!used.has(target.name) && !clashing.has(target.name)) continue;
        const checked = checkTarget(target, options.providerRegistry, RUN_TARGET_POLICY);
        const located = checked.map((issue) => ({
          ...issue,
          ...targetIssuePosition(target, issue.path),
        }));
        issues.push(...sortIssues(located));
      }
    }
    result.set(file.path, clashes.length > 0 ? undefined : loaded.value);
  }
  if (options.mode === 'run') issues.push(...sameNameIssues(result, options.cwd));
  return { value: result, issues };
}

/**
 * A run knows its targets by name (providers, workers, result lines), so eval
 * files that run together cannot each declare a target of the same name.
 */
function sameNameIssues(
  inline: ReadonlyMap<string, readonly ResolvedTarget[] | undefined>,
  cwd: string,
): Issue[] {
  const first = new Map<string, ResolvedTarget>();
  const issues: Issue[] = [];
  for (const targets of inline.values()) {
    for (const target of targets ?? []) {
      const earlier = first.get(target.name);
      if (earlier === undefined) {
        first.set(target.name, target);
        continue;
      }
      issues.push({
        severity: 'error',
        ...targetIssuePosition(target, ['name']),
        target: target.name,
        message: `also declared inline in ${at(earlier, cwd)}; eval files that run together need different target names`,
        hint: 'rename one of them, move the target to targets.yaml to share it, or run these eval files separately',
      });
    }
  }
  return issues;
}

/** Where `target` is named, as `file:line:column`. */
function at(target: ResolvedTarget, cwd: string): string {
  const { line, column } = targetIssuePosition(target, ['name']);
  const position =
    line === undefined ? '' : column === undefined ? `:${line}` : `:${line}:${column}`;
  return `${displayPath(cwd, target.filePath)}${position}`;
}

function clashIssues(
  inline: readonly ResolvedTarget[],
  targetsFile: string | undefined,
  shared: ReadonlyMap<string, readonly ResolvedTarget[] | undefined>,
  cwd: string,
): Issue[] {
  if (targetsFile === undefined) return [];
  const fileTargets = shared.get(targetsFile) ?? [];
  const issues: Issue[] = [];
  for (const target of inline) {
    const other = fileTargets.find((candidate) => candidate.name === target.name);
    if (other === undefined) continue;
    issues.push({
      severity: 'error',
      ...targetIssuePosition(target, ['name']),
      target: target.name,
      message: `defined twice: inline in ${at(target, cwd)} and in ${at(other, cwd)}`,
      hint: `rename one of them (inline targets are seen only by the cases of their own eval file), or delete the inline one to use ${displayPath(cwd, other.filePath)}'s`,
    });
  }
  return issues;
}
