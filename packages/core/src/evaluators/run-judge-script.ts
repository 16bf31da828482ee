import { type ProcessOutcome, runProcess } from '../process/run-process.js';
import { stderrSummary } from '../process/stderr-excerpt.js';
import { isFolder } from '../util/is-folder.js';
import { EvaluatorError } from './evaluator-error.js';

/** How to run a judge script. */
export interface RunJudgeScriptOptions {
  /** A shell command line, or an argv list run without a shell. */
  script: string | readonly string[];
  /** Absolute working directory. */
  cwd: string;
  /** Written to the script's stdin, which is then closed. */
  input: string;
  /** The script's whole environment; default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The hint of the error when the script cannot start or exits non-zero. */
  failureHint?: string;
}

/** What a judge script printed. */
export interface JudgeScriptOutput {
  stdout: string;
  stderr: string;
}

const MAX_STDOUT_BYTES = 8 * 1024 * 1024;
/** Enough of stderr for the excerpt in messages (its start and end). */
const MAX_STDERR_BYTES = 1024 * 1024;

/** How a script is named in messages. */
export function describeScript(script: string | readonly string[]): string {
  return `script ${JSON.stringify(typeof script === 'string' ? script : script.join(' '))}`;
}

/**
 * Runs a judge script to completion and returns its output. Throws
 * `EvaluatorError` when the script cannot start, exits non-zero or by a
 * signal, runs past `timeoutMs`, or `signal` aborts (the script is killed).
 * A script that exits without reading stdin is fine.
 */
export async function runJudgeScript(options: RunJudgeScriptOptions): Promise<JudgeScriptOutput> {
  const label = describeScript(options.script);
  if (options.signal?.aborted) {
    throw new EvaluatorError(`${label} was not started: the run was interrupted`);
  }
  let outcome: ProcessOutcome;
  try {
    outcome = await runProcess({
      command: options.script,
      cwd: options.cwd,
      ...(options.env === undefined ? {} : { env: options.env }),
      stdin: options.input,
      timeoutMs: options.timeoutMs,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      maxStdoutBytes: MAX_STDOUT_BYTES,
      maxStderrBytes: MAX_STDERR_BYTES,
    });
  } catch (error) {
    throw startError(error, options.cwd, label, options.failureHint);
  }
  if (outcome.timedOut) {
    throw new EvaluatorError(
      `${label} timed out after ${formatSeconds(options.timeoutMs)} and was stopped; make it faster or raise timeout_seconds`,
    );
  }
  if (outcome.aborted) {
    throw new EvaluatorError(`${label} was stopped: the run was interrupted`);
  }
  if (outcome.exitCode !== 0) {
    const how =
      outcome.exitCode === undefined
        ? `was killed by signal ${outcome.signalName}`
        : `exited with code ${outcome.exitCode}`;
    const stderr = stderrSummary(outcome.stderr, 600) || 'it printed nothing on stderr';
    throw new EvaluatorError(`${label} ${how}; ${stderr}`, hintOption(options.failureHint));
  }
  return { stdout: outcome.stdout, stderr: outcome.stderr };
}

function startError(
  error: unknown,
  cwd: string,
  label: string,
  hint: string | undefined,
): EvaluatorError {
  if (!isFolder(cwd)) {
    return new EvaluatorError(
      `${label} could not start: its working directory ${JSON.stringify(cwd)} does not exist; fix "cwd" (relative paths resolve against the eval file's directory)`,
    );
  }
  return new EvaluatorError(
    `${label} could not start: ${(error as Error).message}`,
    hintOption(hint),
  );
}

function hintOption(hint: string | undefined): { hint?: string } {
  return hint === undefined ? {} : { hint };
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}
