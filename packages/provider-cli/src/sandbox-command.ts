import { isAgentvError } from '@agentv/core';
import {
  ProviderError,
  type RunProcessOptions,
  type Sandbox,
  stderrExcerpt,
} from '@agentv/core/provider-utils';
import type { CommandOutcome } from './run-command.js';

/** How to run one rendered command in a sandbox: `/bin/sh -c command` in `cwd` (inside). */
export interface SandboxCommandOptions
  extends Pick<
    RunProcessOptions,
    'timeoutMs' | 'signal' | 'maxStdoutBytes' | 'maxStderrBytes' | 'outputLimit'
  > {
  command: string;
  cwd: string;
  /** The whole environment added to the container's own for this process. */
  env: Record<string, string>;
}

/** The end of a process killed for memory: a case error that no retry changes. */
const OOM_EXIT = 'oom';

/**
 * Runs `command` through `sandbox.exec` with the limits of a run on this
 * machine: timeout and abort stop its process group, stdout is cut past the
 * `outputLimit` on stdout (`outputLimitExceeded`, not stopped: the sandbox
 * keeps the first bytes). An engine that fails (gone, container removed)
 * becomes a `ProviderError` naming it, not retried.
 */
export async function runInSandbox(
  sandbox: Sandbox,
  options: SandboxCommandOptions,
): Promise<CommandOutcome & { oomMessage?: string }> {
  const stdoutLimit = options.outputLimit?.stdoutBytes;
  let outcome: Awaited<ReturnType<Sandbox['exec']>>;
  try {
    outcome = await sandbox.exec({
      command: options.command,
      cwd: options.cwd,
      env: options.env,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      // One byte past the limit tells an answer at the limit from one over it.
      ...(stdoutLimit !== undefined
        ? { maxStdoutBytes: stdoutLimit + 1 }
        : options.maxStdoutBytes === undefined
          ? {}
          : { maxStdoutBytes: options.maxStdoutBytes }),
      ...(options.maxStderrBytes === undefined ? {} : { maxStderrBytes: options.maxStderrBytes }),
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ProviderError(`could not run the command in its container: ${reason}`, {
      retryable: false,
      cause: error,
      hint:
        isAgentvError(error) && error.hint !== undefined
          ? error.hint
          : 'check the container engine (`docker info`)',
    });
  }
  const result: CommandOutcome & { oomMessage?: string } = {
    stdout: outcome.stdout,
    stderr: outcome.stderr,
    timedOut: outcome.timedOut,
    aborted: outcome.aborted,
    durationMs: outcome.durationMs,
  };
  if (outcome.exitCode !== undefined) result.exitCode = outcome.exitCode;
  else if (outcome.oomKilled) result.signalName = OOM_EXIT;
  if (outcome.oomKilled) result.oomMessage = outcome.message ?? 'out of memory';
  const bytes = Buffer.byteLength(outcome.stdout);
  if (stdoutLimit !== undefined && bytes > stdoutLimit) {
    result.stdout = '';
    result.outputLimitExceeded = { source: 'stdout', maxBytes: stdoutLimit, bytes, stopped: false };
  }
  return result;
}

/**
 * Throws for a command in a sandbox that the memory ceiling killed: "out of
 * memory (limit 512m)", not retried (the same agent would hit it again).
 */
export function throwIfSandboxFailed(
  outcome: CommandOutcome & { oomMessage?: string },
  stderr: string,
): void {
  if (outcome.oomMessage === undefined) return;
  const excerpt = stderrExcerpt(stderr);
  throw new ProviderError(`the command was killed: ${outcome.oomMessage}`, {
    retryable: false,
    ...(excerpt ? { stderr: excerpt } : {}),
    hint: 'raise workspace.docker.memory, or make the agent use less memory',
  });
}
