import path from 'node:path';
import {
  type EvaluatorRegistry,
  type Issue,
  loadProject,
  type ProviderRegistry,
  planRun,
} from '@agentv/core';
import { CLI_OPTION_NAMES, displayPath, uniqueIssues } from '@agentv/core/internal';
import { loadEvalFiles } from '../eval/load-eval-files.js';
import { detectFileKindOf, outsideWorkspaces } from '../input-files/detect-file-kind.js';

export interface ValidateInputsOptions {
  /** Resolves relative paths; the last place input files are looked up. */
  cwd: string;
  providerRegistry: ProviderRegistry;
  evaluatorRegistry: EvaluatorRegistry;
  /** `--targets`: the targets file eval files are checked against. */
  targetsFile?: string;
  /** `--target`: check every case against this target (or each of these targets). */
  targetOverride?: string | readonly string[];
  /** `--judge-target`: the judge target of every case, over the files' and targets'. */
  judgeTargetOverride?: string;
  /** YAML files of other tools skipped in the folders searched (`withoutOtherToolsYaml`). */
  skipped?: readonly string[];
}

/** Everything `agentv validate` found. */
export interface ValidationReport {
  /** Every file checked (absolute paths): those given, and the targets and config files they use. */
  files: string[];
  /** Every problem, each once; `file` is absolute (or `--target` for the flag). */
  issues: Issue[];
  /** The skipped files to name: those outside workspace templates, which hold the agent's material. */
  skipped: string[];
}

/**
 * Checks input files without running anything: they are loaded as
 * `loadProject` loads them for validation (every target of a targets file
 * among `files` checked by its provider; of a targets file found for the eval
 * files, only the targets they use), then each eval file is planned as
 * `agentv eval` would plan it, against the targets file found for it.
 */
export async function validateInputs(
  inputFiles: readonly string[],
  options: ValidateInputsOptions,
): Promise<ValidationReport> {
  const detected = await Promise.all(inputFiles.map((file) => detectFileKindOf(file)));
  // Workspace files are checked through the eval files that name them, against their folder.
  const files = inputFiles.filter((_, index) => detected[index] !== 'workspace');
  const kinds = detected.filter((kind) => kind !== 'workspace');
  const byKind = (kind: string) => files.filter((_, index) => kinds[index] === kind);
  const project = await loadProject({
    cwd: options.cwd,
    providerRegistry: options.providerRegistry,
    evalFiles: files.filter((_, index) => kinds[index] !== 'targets' && kinds[index] !== 'config'),
    targetsFiles: byKind('targets'),
    configFiles: byKind('config'),
    ...(options.targetsFile === undefined ? {} : { targetsFile: options.targetsFile }),
    ...(options.targetOverride === undefined ? {} : { targetOverride: options.targetOverride }),
    mode: 'validate',
    // Validation runs nothing afterwards, so it can spend memory on speed.
    loadEvalFiles: (requests) => loadEvalFiles(requests, { parallel: true }),
    optionNames: CLI_OPTION_NAMES,
  });
  const issues = [...project.issues];
  for (const file of project.evalFiles) {
    if (!file.value) continue;
    if (file.targetsFile === undefined && !project.inlineTargets.has(file.path)) {
      issues.push({
        severity: 'warning',
        file: file.path,
        message: 'no targets file was found, so the targets of its cases were not checked',
        hint: 'create .agentv/targets.yaml next to your evals (agentv init writes one) or pass --targets PATH',
      });
    }
    const targets = file.targetsFile ? project.targets.get(file.targetsFile) : undefined;
    const planned = planRun({
      cases: file.value.cases,
      targets: targets ?? [],
      targetsFile: file.targetsFile && displayPath(options.cwd, file.targetsFile),
      targetOverride: options.targetOverride,
      ...(options.judgeTargetOverride === undefined
        ? {}
        : { judgeTargetOverride: options.judgeTargetOverride }),
      optionNames: CLI_OPTION_NAMES,
      providerRegistry: options.providerRegistry,
      evaluatorRegistry: options.evaluatorRegistry,
      // Without a usable targets file only the evaluators can be checked (inline targets count).
      checkTargets:
        targets !== undefined ||
        (file.targetsFile === undefined && project.inlineTargets.has(file.path)),
      targetsChecked: true,
      inlineTargets: project.inlineTargets,
      validating: true,
    });
    issues.push(...planned.issues);
  }
  // Files the project loader set aside (YAML inside a workspace's template) were not checked.
  const checked = [
    ...files.filter((file) => project.files.includes(file)),
    ...project.files.filter((file) => !files.includes(file)),
  ];
  return {
    files: checked.map((file) => path.resolve(file)),
    issues: uniqueIssues(issues),
    // A workspace template's YAML is the agent's material, set aside like the loader's: not named.
    skipped: outsideWorkspaces(options.skipped ?? [], project.evalFiles),
  };
}
