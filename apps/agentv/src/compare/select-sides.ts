import { UsageError } from '@agentv/core/internal';
import type { ComparableResult, ReadResultLine } from '@agentv/results';

/** One side of a comparison: the cases and how to name the side in the output. */
export interface ComparedSide {
  /** The result file as shown to the user. */
  file: string;
  /** The target picked with `--base-target` / `--new-target`, if any. */
  target?: string;
  results: ComparableResult[];
}

export interface SelectedSides {
  base: ComparedSide;
  next: ComparedSide;
  /** Match cases by target too: both sides hold the same targets. */
  matchTarget: boolean;
}

interface FileLines {
  /** As shown to the user. */
  file: string;
  lines: ReadResultLine[];
}

/**
 * Picks the two sides to compare. With one file both targets must be named;
 * with two files a target flag narrows its side. Sides holding the same
 * targets are matched per target; otherwise each side must hold one target.
 * Each side may hold a case (and target) once.
 */
export function selectSides(
  files: readonly FileLines[],
  baseTarget: string | undefined,
  newTarget: string | undefined,
): SelectedSides {
  if (files.length === 1) {
    const only = files[0]!;
    const targets = targetsOf(only.lines);
    if (targets.length < 2) {
      // Nothing to compare within it: say so instead of asking for two targets it does not have.
      throw new UsageError(
        targets.length === 0
          ? `${only.file} holds no results, so there is nothing to compare`
          : `${only.file} holds results of one target only (${targets[0]}), so there is nothing to compare within it`,
        {
          hint: 'pass two result files, e.g. agentv compare base.jsonl new.jsonl (the run before a change and the run after it)',
        },
      );
    }
    if (baseTarget === undefined || newTarget === undefined) {
      throw new UsageError(`comparing within ${only.file} needs --base-target and --new-target`, {
        hint: `name two of its targets: ${targets.join(', ')}; or pass two result files`,
      });
    }
    if (baseTarget === newTarget) {
      throw new UsageError(`--base-target and --new-target are both "${baseTarget}"`, {
        hint: 'name two different targets of the run',
      });
    }
  }
  const baseFile = files[0]!;
  const newFile = files[files.length - 1]!;
  const base = side(baseFile, baseTarget, '--base-target');
  const next = side(newFile, newTarget, '--new-target');
  const baseTargets = new Set(base.results.map((r) => r.target));
  const newTargets = new Set(next.results.map((r) => r.target));
  const sameTargets =
    baseTargets.size === newTargets.size && [...baseTargets].every((t) => newTargets.has(t));
  if (!sameTargets && (baseTargets.size > 1 || newTargets.size > 1)) {
    throw new UsageError(
      `${base.file} holds target(s) ${[...baseTargets].join(', ')} and ${next.file} holds ${[...newTargets].join(', ')}`,
      {
        hint: 'pick one target per side with --base-target NAME and --new-target NAME',
      },
    );
  }
  checkUnique(baseFile, base, sameTargets);
  checkUnique(newFile, next, sameTargets);
  return { base, next, matchTarget: sameTargets };
}

function side(file: FileLines, target: string | undefined, flag: string): ComparedSide {
  const lines =
    target === undefined ? file.lines : file.lines.filter((l) => l.record.target === target);
  if (target !== undefined && lines.length === 0) {
    throw new UsageError(`${flag} ${target}: ${file.file} holds no result of that target`, {
      hint: `targets in ${file.file}: ${targetsOf(file.lines).join(', ') || '(none: the file is empty)'}`,
    });
  }
  return {
    file: file.file,
    ...(target === undefined ? {} : { target }),
    results: lines.map(({ record }) => ({
      evalFile: record.eval_file ?? record.dataset,
      evalId: record.eval_id,
      target: record.target,
      score: record.score,
      passed: record.passed === true,
      ...(record.error === undefined ? {} : { error: record.error }),
    })),
  };
}

function checkUnique(file: FileLines, chosen: ComparedSide, byTarget: boolean): void {
  const seen = new Map<string, number>();
  const lines = file.lines.filter(
    (l) => chosen.target === undefined || l.record.target === chosen.target,
  );
  for (const { record, line } of lines) {
    const evalFile = record.eval_file ?? record.dataset;
    const key = JSON.stringify(
      byTarget ? [evalFile, record.eval_id, record.target] : [evalFile, record.eval_id],
    );
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      throw new UsageError(
        `${file.file}:${line} holds case "${record.eval_id}" (eval file ${evalFile}) again, after line ${earlier}`,
        {
          hint: 'compare result files holding one line per case (join shards with agentv results merge first)',
        },
      );
    }
    seen.set(key, line);
  }
}

function targetsOf(lines: readonly ReadResultLine[]): string[] {
  return [...new Set(lines.map((l) => l.record.target))];
}
