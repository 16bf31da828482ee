import {
  type CallTimeout,
  formatBytes,
  type OutputLimitExceeded,
  outputLimitError,
  ProviderError,
  stderrExcerpt,
  stderrSummary,
} from '@agentv/core/provider-utils';
import type { CommandOutcome } from './run-command.js';

/** Throws before a command starts when the run was interrupted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new ProviderError('the command was not started: the run was interrupted', {
      retryable: false,
    });
  }
}

/**
 * Throws the `ProviderError` for a command that did not succeed: interrupted
 * (not retryable), timed out or exited non-zero (retryable). The message names
 * the error's own line first, then the stderr excerpt on one line
 * (`stderrSummary`, as for `code_judge` scripts and persistent agents);
 * `fullStderr` is the command's whole (redacted) stderr.
 * `timeout` is the call's (core's `callTimeout`): its hint names only what changes the outcome.
 * `verbose`: the command was printed already, so the hint does not ask for `--verbose`.
 */
export function throwIfFailed(
  outcome: CommandOutcome,
  fullStderr: string,
  timeout: CallTimeout,
  verbose = false,
): void {
  if (outcome.exitCode === 0 && !outcome.timedOut && !outcome.aborted) return;
  const stderr = stderrExcerpt(fullStderr);
  const summary = stderrSummary(fullStderr);
  const withStderr = (message: string) => (summary ? `${message}; ${summary}` : message);
  const diagnostics = {
    ...(outcome.exitCode === undefined ? {} : { exitCode: outcome.exitCode }),
    ...(stderr ? { stderr } : {}),
  };
  if (outcome.aborted) {
    throw new ProviderError('the command was stopped: the run was interrupted', {
      retryable: false,
      ...diagnostics,
    });
  }
  if (outcome.timedOut) {
    throw new ProviderError(withStderr(`timed out after ${timeout.seconds}s`), {
      retryable: true,
      failureClass: 'timeout',
      ...diagnostics,
      hint: `${timeout.hint}, or make the agent faster`,
    });
  }
  throw new ProviderError(withStderr(describeEnd(outcome, timeout.seconds)), {
    retryable: true,
    ...diagnostics,
    hint: verbose
      ? 'run the command printed above by hand to find out why it fails'
      : 'run the rendered command by hand to find out why it fails; --verbose prints it',
  });
}

/**
 * Throws core's `outputLimitError` (not retryable) when the command passed an
 * output ceiling; `subject` names what passed it (`the agent's answer on stdout`).
 * Checked before `throwIfFailed`: a command stopped for its output ends by a
 * signal, and that is not what went wrong.
 */
export function throwIfTooLong(outcome: CommandOutcome, subject: string): void {
  const exceeded = outcome.outputLimitExceeded;
  if (exceeded === undefined) return;
  throw outputLimitError(
    `${subject} passed max_output_bytes (${formatBytes(exceeded.maxBytes)}): ${tooLongDetail(exceeded)}`,
  );
}

/** `it had written 1.2 MiB when it was stopped`, or `it wrote 70 KiB` when it ended by itself. */
export function tooLongDetail(exceeded: OutputLimitExceeded): string {
  return exceeded.stopped
    ? `it had written ${formatBytes(exceeded.bytes)} when it was stopped`
    : `it wrote ${formatBytes(exceeded.bytes)}`;
}

/** How a command ended, in words: `command exited with code 3`, `timed out after 5s`. */
export function describeEnd(outcome: CommandOutcome, timeoutSeconds: number | undefined): string {
  if (outcome.outputLimitExceeded?.stopped) return 'stopped: its output passed max_output_bytes';
  if (outcome.timedOut) return `timed out after ${timeoutSeconds}s`;
  if (outcome.aborted) return 'stopped: the run was interrupted';
  if (outcome.exitCode === undefined) {
    return `command was killed by signal ${outcome.signalName ?? 'unknown'}`;
  }
  return `command exited with code ${outcome.exitCode}`;
}
