import type { LoadedProject } from '../project/load-project.js';
import type { ResolvedTarget } from '../provider/resolved-target.js';
import { displayPath } from '../util/display-path.js';
import type { PlanRunOptions } from './plan-run.js';

/** What `planRun` is told of the targets a run's cases may use. */
export type RunTargets = Pick<
  PlanRunOptions,
  'targets' | 'targetsFile' | 'checkTargets' | 'inlineTargets'
>;

/**
 * What a run of a loaded project's cases is planned against: the targets file its eval
 * files use (loaded with `mode: 'run'`, they share one) and the targets each eval file
 * declares inline.
 */
export function runTargetsOf(
  project: Pick<LoadedProject, 'evalFiles' | 'targets' | 'inlineTargets'>,
  cwd: string,
): RunTargets {
  const file = project.evalFiles[0]?.targetsFile;
  return runTargets(
    file === undefined ? [] : project.targets.get(file),
    file,
    cwd,
    project.inlineTargets,
  );
}

/**
 * `targets` as `planRun` takes them; `targetsFile` (absolute) is named relative to `cwd`
 * in messages. Undefined `targets` (their file has errors, already reported) are not
 * checked: "unknown target" on top would mislead.
 */
export function runTargets(
  targets: ResolvedTarget[] | undefined,
  targetsFile: string | undefined,
  cwd: string,
  inlineTargets?: PlanRunOptions['inlineTargets'],
): RunTargets {
  const planned: RunTargets = { targets: targets ?? [], checkTargets: targets !== undefined };
  if (targetsFile !== undefined) planned.targetsFile = displayPath(cwd, targetsFile);
  if (inlineTargets !== undefined) planned.inlineTargets = inlineTargets;
  return planned;
}
