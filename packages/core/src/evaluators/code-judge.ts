import path from 'node:path';
import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import { anchorScriptFile } from './anchor-script-file.js';
import { buildCodeJudgePayload } from './code-judge-payload.js';
import type { EvaluationContext, Evaluator } from './evaluator.js';
import { describe, optionIssue, throwIfInvalid, timeoutSecondsIssue } from './evaluator-options.js';
import { parseJudgeOutput } from './parse-judge-output.js';
import { describeScript, runJudgeScript } from './run-judge-script.js';
import { graderSandbox, inSandboxIssue } from './sandbox-grader.js';
import { judgeInSandbox } from './sandbox-judge.js';

/** Seconds a code judge may run when `timeout_seconds` is not set. */
export const DEFAULT_CODE_JUDGE_TIMEOUT_SECONDS = 60;

const IN_WORKSPACE_HINT =
  "it ran in the case's workspace: its script file is found from the eval file's folder, other relative paths from the workspace; set `cwd` (relative to the eval file) to run it elsewhere";

interface CodeJudgeOptions {
  script: string | string[];
  cwd?: string;
  timeoutSeconds: number;
}

/**
 * `code_judge`: runs `script` (a shell command line, or an argv list run
 * without a shell) in `cwd` (relative to the eval file's directory); without
 * `cwd`, in the case's workspace when it has one (its script file, as
 * `validate` checks it, still found from the eval file's directory: see
 * `anchorScriptFile`), else in the eval file's directory. Writes the case as
 * one JSON object to its stdin (see `CodeJudgePayload`: `workspace_path` and
 * `file_changes` included) and reads `{score, hits?, misses?, reasoning?}`
 * from its stdout. `timeout_seconds` defaults to 60. A script that cannot
 * start, exits non-zero, times out or prints anything else throws
 * `EvaluatorError`. Scripts start from `context.env` (the project's
 * environment), else `process.env`, plus `AGENTV_WORKSPACE` with a workspace.
 */
export const codeJudgeEvaluator: Evaluator = {
  type: 'code_judge',
  options: ['script', 'cwd', 'timeout_seconds', 'in_sandbox'],
  validate: (config) => validateOptions(config),
  async evaluate(config, context) {
    const options = readOptions(config);
    const evalDirectory = path.dirname(context.evalCase.filePath);
    const sandbox = graderSandbox(config, context, false);
    if (sandbox !== undefined) return judgeInSandbox(options, context, sandbox, evalDirectory);
    const { workspace } = context;
    const inWorkspace = workspace !== undefined && options.cwd === undefined;
    const { stdout } = await runJudgeScript({
      script: inWorkspace ? anchorScriptFile(options.script, evalDirectory) : options.script,
      cwd: inWorkspace ? workspace.path : path.resolve(evalDirectory, options.cwd ?? '.'),
      input: JSON.stringify(buildCodeJudgePayload(context)),
      timeoutMs: options.timeoutSeconds * 1000,
      signal: context.signal,
      ...judgeEnv(context),
      ...(inWorkspace ? { failureHint: IN_WORKSPACE_HINT } : {}),
    });
    return parseJudgeOutput(stdout, describeScript(options.script));
  },
};

/** The script's environment: the project's, plus `AGENTV_WORKSPACE` when the case has a workspace. */
function judgeEnv(context: EvaluationContext): {
  env?: Readonly<Record<string, string | undefined>>;
} {
  const { workspace, env } = context;
  if (workspace === undefined) return env === undefined ? {} : { env };
  return { env: { ...(env ?? process.env), AGENTV_WORKSPACE: workspace.path } };
}

function validateOptions(config: EvaluatorConfig): Issue[] {
  const problems: Issue[] = [];
  const { script, cwd, timeout_seconds: timeoutSeconds } = config;
  const usage =
    'give "script" as a command line such as "node ./judge.mjs" or a list such as [node, ./judge.mjs]';
  if (script === undefined) {
    problems.push(optionIssue('script', `"script" is missing; ${usage}`));
  } else if (typeof script === 'string') {
    if (script.trim() === '') problems.push(optionIssue('script', `"script" is empty; ${usage}`));
  } else if (
    !Array.isArray(script) ||
    script.length === 0 ||
    !script.every((part) => typeof part === 'string') ||
    script[0] === ''
  ) {
    problems.push(
      optionIssue(
        'script',
        `"script" must be a string or a non-empty list of strings, got ${describe(script)}; ${usage}`,
      ),
    );
  }
  if (cwd !== undefined && (typeof cwd !== 'string' || cwd === '')) {
    problems.push(optionIssue('cwd', `"cwd" must be a directory path, got ${describe(cwd)}`));
  }
  const sandboxProblem = inSandboxIssue(config);
  if (sandboxProblem !== undefined) problems.push(sandboxProblem);
  const timeoutProblem = timeoutSecondsIssue(timeoutSeconds);
  if (timeoutProblem !== undefined) problems.push(timeoutProblem);
  return problems;
}

function readOptions(config: EvaluatorConfig): CodeJudgeOptions {
  const problems = validateOptions(config);
  throwIfInvalid(problems);
  return {
    script: config.script as string | string[],
    cwd: config.cwd as string | undefined,
    timeoutSeconds:
      (config.timeout_seconds as number | undefined) ?? DEFAULT_CODE_JUDGE_TIMEOUT_SECONDS,
  };
}
