import type { InputIssue } from '../errors/input-issue.js';
import type { SourceLocator } from '../util/yaml-source.js';

/** A problem found in one loaded target by a caller's extra checks (see `LoadTargetsOptions`). */
export interface TargetFinding {
  severity: 'error' | 'warning';
  /**
   * The snake_case settings key it is about, dotted for nested keys
   * (`command_template`, `healthcheck.url`); omitted for the whole target.
   */
  field?: string;
  message: string;
  hint?: string;
}

/**
 * Turns a finding into an issue placed on the key it names (written in
 * either spelling), else on the value's nearest existing parent, else on the target.
 */
export function targetFindingIssue(
  finding: TargetFinding,
  targetName: string,
  targetPath: readonly PropertyKey[],
  file: string,
  source: SourceLocator,
): InputIssue {
  const segments = finding.field === undefined ? [] : finding.field.split('.');
  const position =
    segments.length === 0
      ? source.locate(targetPath)
      : source.locateKey([...targetPath, ...segments.slice(0, -1)], segments.at(-1)!);
  const issue: InputIssue = {
    severity: finding.severity,
    file,
    ...position,
    target: targetName,
    message: finding.message,
  };
  if (finding.hint !== undefined) issue.hint = finding.hint;
  return issue;
}
