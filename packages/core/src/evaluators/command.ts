import path from 'node:path';
import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import { type ProcessOutcome, runProcess } from '../process/run-process.js';
import { stderrSummary } from '../process/stderr-excerpt.js';
import { SANDBOX_WORKSPACE } from '../sandbox/sandbox-runtime.js';
import { credentialValues } from '../util/credential-variables.js';
import { isFolder } from '../util/is-folder.js';
import { createSecretMask } from '../util/mask-secrets.js';
import { outputTail, scoreLine } from './command-output.js';
import type { EvaluationScore, Evaluator } from './evaluator.js';
import { EvaluatorError } from './evaluator-error.js';
import { describe, optionIssue, throwIfInvalid, timeoutSecondsIssue } from './evaluator-options.js';
import { requireWorkspace } from './require-workspace.js';
import { execForGrader, graderSandbox, inSandboxIssue, sandboxCwd } from './sandbox-grader.js';
import { workspacePathProblem } from './workspace-path.js';

/** Seconds a `command` grader may run when `timeout_seconds` is not set: a test suite's time. */
export const DEFAULT_COMMAND_TIMEOUT_SECONDS = 300;

/** The end of each stream kept: enough for the reasoning's tail and the last line's score. */
const KEPT_OUTPUT_BYTES = 1024 * 1024;

/**
 * The placeholders of workspace hooks (upstream AgentV's) and of `cli` targets'
 * templates (`{WORKSPACE}`): a grader's command has none.
 */
const HOOK_PLACEHOLDER =
  /\{\{\s*(?:workspace_path|test_id|eval_run_id|case_input|case_metadata)\s*\}\}|\{WORKSPACE\}/;

/** Exit codes with which a shell says it could not run the command: not executable, not found. */
const CANNOT_RUN_CODES = new Set([126, 127]);

/**
 * `command`: runs `command` (a string, run by `/bin/sh -c`, or an argv list
 * run without a shell) in the case's workspace after the agent ran (`cwd`,
 * relative to the workspace, picks a folder in it), from the project's
 * environment plus `AGENTV_WORKSPACE` and `AGENTV_EVAL_ID`, with stdin
 * closed. Exit 0 scores 1, any other exit 0. When the last non-empty line
 * of stdout is a JSON object with a `score`, it gives the score, hits,
 * misses and reasoning instead, whatever the exit code (partial credit).
 * The reasoning is otherwise how it ended and the last 20 lines (2 KiB) of
 * its stdout and stderr, credentials of the environment masked. After
 * `timeout_seconds` (default 300) its process group is killed and it scores
 * 0. A command that cannot start, or that the shell cannot find or execute
 * (exit 127 or 126), is an evaluator error, as is a case without a workspace.
 */
export const commandEvaluator: Evaluator = {
  type: 'command',
  options: ['command', 'cwd', 'timeout_seconds', 'in_sandbox'],
  needsWorkspace: true,
  validate: (config) => validateOptions(config),
  async evaluate(config, context) {
    const workspace = requireWorkspace(context, 'command');
    throwIfInvalid(validateOptions(config));
    const command = config.command as string | string[];
    const timeoutSeconds =
      (config.timeout_seconds as number | undefined) ?? DEFAULT_COMMAND_TIMEOUT_SECONDS;
    const label = describeCommand(command);
    const sandbox = graderSandbox(config, context, true);
    if (sandbox !== undefined) {
      if (context.signal?.aborted) {
        throw new EvaluatorError(`${label} was not started: the run was interrupted`);
      }
      // Inside, only the container's environment (docker.env) and these two.
      const outcome = await execForGrader(
        sandbox,
        {
          command,
          cwd: sandboxCwd(config.cwd as string | undefined),
          env: { AGENTV_WORKSPACE: SANDBOX_WORKSPACE, AGENTV_EVAL_ID: context.evalCase.id },
          timeoutMs: timeoutSeconds * 1000,
          ...(context.signal === undefined ? {} : { signal: context.signal }),
          maxStdoutBytes: KEPT_OUTPUT_BYTES,
          maxStderrBytes: KEPT_OUTPUT_BYTES,
        },
        label,
      );
      return gradeOutcome(outcome, label, timeoutSeconds);
    }
    const cwd = path.resolve(workspace.path, (config.cwd as string | undefined) ?? '.');
    const env = {
      ...(context.env ?? process.env),
      AGENTV_WORKSPACE: workspace.path,
      AGENTV_EVAL_ID: context.evalCase.id,
    };
    if (context.signal?.aborted) {
      throw new EvaluatorError(`${label} was not started: the run was interrupted`);
    }
    let outcome: ProcessOutcome;
    try {
      outcome = await runProcess({
        command,
        cwd,
        env,
        timeoutMs: timeoutSeconds * 1000,
        ...(context.signal === undefined ? {} : { signal: context.signal }),
        maxStdoutBytes: KEPT_OUTPUT_BYTES,
        keepStdout: 'tail',
        maxStderrBytes: KEPT_OUTPUT_BYTES,
      });
    } catch (error) {
      throw startError(error, cwd, label);
    }
    const mask = createSecretMask(credentialValues(env));
    const grade = gradeOutcome(outcome, label, timeoutSeconds);
    if (mask === undefined) return grade;
    return {
      ...grade,
      hits: grade.hits.map(mask.text),
      misses: grade.misses.map(mask.text),
      ...(grade.reasoning === undefined ? {} : { reasoning: mask.text(grade.reasoning) }),
    };
  },
};

function gradeOutcome(
  outcome: ProcessOutcome,
  label: string,
  timeoutSeconds: number,
): EvaluationScore {
  const tail = (how: string) => outputTail(how, outcome.stdout, outcome.stderr);
  if (outcome.aborted) throw new EvaluatorError(`${label} was stopped: the run was interrupted`);
  if (outcome.timedOut) {
    const how = `timed out after ${timeoutSeconds}s and was stopped`;
    return { score: 0, hits: [], misses: [`${label} ${how}`], reasoning: tail(how) };
  }
  const printed = scoreLine(outcome.stdout, label);
  const how =
    outcome.exitCode === undefined
      ? `was killed by signal ${outcome.signalName}`
      : `exited with code ${outcome.exitCode}`;
  if (printed !== undefined) return { ...printed, reasoning: printed.reasoning ?? tail(how) };
  if (outcome.exitCode !== undefined && CANNOT_RUN_CODES.has(outcome.exitCode)) {
    const stderr = stderrSummary(outcome.stderr, 600) || 'it printed nothing on stderr';
    throw new EvaluatorError(
      `${label} ${how}: ${outcome.exitCode === 127 ? 'a program it runs was not found' : 'a program it runs is not executable'}; ${stderr}`,
      {
        hint: 'install the program the command needs (it runs with the project environment, in the workspace), or fix the command',
      },
    );
  }
  if (outcome.exitCode === 0)
    return { score: 1, hits: [`${label} ${how}`], misses: [], reasoning: tail(how) };
  return { score: 0, hits: [], misses: [`${label} ${how}`], reasoning: tail(how) };
}

/** How a command is named in hits, misses and errors. */
function describeCommand(command: string | readonly string[]): string {
  return `command ${JSON.stringify(typeof command === 'string' ? command : command.join(' '))}`;
}

function startError(error: unknown, cwd: string, label: string): EvaluatorError {
  if (!isFolder(cwd)) {
    return new EvaluatorError(
      `${label} could not start: its working directory ${JSON.stringify(cwd)} does not exist`,
      {
        hint: 'a relative "cwd" is inside the workspace; check that the folder is in the template or repository (or that the agent did not remove it)',
      },
    );
  }
  const code = (error as NodeJS.ErrnoException).code;
  return new EvaluatorError(`${label} could not start: ${(error as Error).message}`, {
    hint:
      code === 'ENOENT'
        ? "install the program or give its path; an argv list is run without a shell, with the project environment's PATH"
        : 'check the command and the permissions of its program',
  });
}

function validateOptions(config: EvaluatorConfig): Issue[] {
  const problems: Issue[] = [];
  const { command, cwd, timeout_seconds: timeoutSeconds } = config;
  const usage =
    'give "command" as a command line such as "npm test" or a list such as [node, --test]';
  if (command === undefined) {
    problems.push(optionIssue('command', `"command" is missing; ${usage}`));
  } else if (typeof command === 'string') {
    if (command.trim() === '')
      problems.push(optionIssue('command', `"command" is empty; ${usage}`));
  } else if (
    !Array.isArray(command) ||
    command.length === 0 ||
    !command.every((part) => typeof part === 'string') ||
    command[0] === ''
  ) {
    problems.push(
      optionIssue(
        'command',
        `"command" must be a string or a non-empty list of strings, got ${describe(command)}; ${usage}`,
      ),
    );
  }
  const parts = typeof command === 'string' ? [command] : Array.isArray(command) ? command : [];
  const placeholder = parts
    .filter((part): part is string => typeof part === 'string')
    .map((part) => HOOK_PLACEHOLDER.exec(part)?.[0])
    .find((match) => match !== undefined);
  if (placeholder !== undefined) {
    problems.push({
      ...optionIssue(
        'command',
        `"command" holds ${placeholder}, which is not replaced: a grader's command is run as written`,
      ),
      hint: 'the command runs in the workspace; read "$AGENTV_WORKSPACE" and "$AGENTV_EVAL_ID" from its environment',
    });
  }
  if (cwd !== undefined) {
    if (typeof cwd !== 'string' || cwd.trim() === '') {
      problems.push(optionIssue('cwd', `"cwd" must be a folder path, got ${describe(cwd)}`));
    } else if (!path.isAbsolute(cwd)) {
      const problem = workspacePathProblem(cwd);
      if (problem !== undefined) {
        problems.push(
          optionIssue('cwd', `"cwd" ${JSON.stringify(cwd)} ${problem} (or an absolute path)`),
        );
      }
    }
  }
  const sandboxProblem = inSandboxIssue(config);
  if (sandboxProblem !== undefined) problems.push(sandboxProblem);
  const timeoutProblem = timeoutSecondsIssue(timeoutSeconds);
  if (timeoutProblem !== undefined) problems.push(timeoutProblem);
  return problems;
}
