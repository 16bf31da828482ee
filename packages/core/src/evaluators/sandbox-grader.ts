import { posix } from 'node:path';
import type { Issue } from '../errors/input-issue.js';
import type { EvalCase } from '../eval-file/eval-case.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import { evaluatorIssuePosition } from '../eval-file/evaluator-positions.js';
import type { ProcessOutcome } from '../process/run-process.js';
import { SANDBOX_WORKSPACE, type Sandbox, type SandboxExec } from '../sandbox/sandbox-runtime.js';
import type { EvaluationContext } from './evaluator.js';
import { EvaluatorError } from './evaluator-error.js';
import { describe, optionIssue } from './evaluator-options.js';

/**
 * The container a grader runs in: the case's sandbox when `in_sandbox` (or,
 * unset, `byDefault`) says so and the case has one; undefined to run on this
 * machine. `in_sandbox: true` in a case without one is an error (`validate`
 * reports it first: `sandboxGraderIssues`).
 */
export function graderSandbox(
  config: EvaluatorConfig,
  context: EvaluationContext,
  byDefault: boolean,
): Sandbox | undefined {
  const wanted = (config.in_sandbox as boolean | undefined) ?? byDefault;
  if (!wanted) return undefined;
  const sandbox = context.workspace?.sandbox;
  if (sandbox === undefined && config.in_sandbox === true) {
    throw new EvaluatorError(
      `grader "${config.name}" has in_sandbox: true, and case "${context.evalCase.id}" has no container`,
      { hint: IN_SANDBOX_HINT },
    );
  }
  return sandbox;
}

const IN_SANDBOX_HINT =
  'add `docker:` to the case’s workspace block, or remove `in_sandbox: true` to run the grader on this machine';

/** `in_sandbox` must be a boolean. */
export function inSandboxIssue(config: EvaluatorConfig): Issue | undefined {
  const value = config.in_sandbox;
  if (value === undefined || typeof value === 'boolean') return undefined;
  return optionIssue('in_sandbox', `"in_sandbox" must be true or false, got ${describe(value)}`);
}

/**
 * Errors for graders of `evalCase` with `in_sandbox: true` when the case's
 * workspace has no `docker:` (no container to run them in).
 */
export function sandboxGraderIssues(evalCase: EvalCase): Issue[] {
  if (evalCase.workspace?.docker !== undefined) return [];
  return evalCase.evaluators
    .filter((config) => config.in_sandbox === true)
    .map((config) => {
      const { shared: _, ...position } = evaluatorIssuePosition(evalCase, config.name, undefined);
      return {
        severity: 'error' as const,
        file: evalCase.filePath,
        caseId: evalCase.id,
        ...position,
        message: `grader "${config.name}" (${config.type}) has in_sandbox: true, and the case's workspace has no docker: block to run it in`,
        hint: IN_SANDBOX_HINT,
      };
    });
}

/** A grader's working directory inside: relative to `/workspace`, absolute as written. */
export function sandboxCwd(cwd: string | undefined): string {
  if (cwd === undefined) return SANDBOX_WORKSPACE;
  return posix.isAbsolute(cwd) ? cwd : posix.join(SANDBOX_WORKSPACE, cwd.replaceAll('\\', '/'));
}

/**
 * Runs a grader's process in `sandbox` and returns it as the process runner
 * would: a process killed for memory ends by `SIGKILL` with its message on
 * stderr; an engine that fails is an `EvaluatorError` naming it.
 */
export async function execForGrader(
  sandbox: Sandbox,
  request: SandboxExec,
  label: string,
): Promise<ProcessOutcome> {
  let outcome: Awaited<ReturnType<Sandbox['exec']>>;
  try {
    outcome = await sandbox.exec(request);
  } catch (error) {
    const hint = (error as { hint?: unknown }).hint;
    throw new EvaluatorError(
      `${label} could not run in the case's container: ${(error as Error).message}`,
      { hint: typeof hint === 'string' ? hint : 'check the container engine (`docker info`)' },
    );
  }
  const result: ProcessOutcome = {
    stdout: outcome.stdout,
    stderr: outcome.oomKilled
      ? `${outcome.stderr}${outcome.stderr.endsWith('\n') || outcome.stderr === '' ? '' : '\n'}${outcome.message ?? 'out of memory'}\n`
      : outcome.stderr,
    timedOut: outcome.timedOut,
    aborted: outcome.aborted,
    durationMs: outcome.durationMs,
  };
  if (outcome.exitCode !== undefined) result.exitCode = outcome.exitCode;
  else result.signalName = outcome.oomKilled ? 'SIGKILL (out of memory)' : 'SIGKILL';
  return result;
}
