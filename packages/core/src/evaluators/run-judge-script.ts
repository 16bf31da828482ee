import { type ChildProcess, spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { EvaluatorError } from '../errors/evaluator-error.js';

/** How to run a judge script. */
export interface RunJudgeScriptOptions {
  /** A shell command line, or an argv list run without a shell. */
  script: string | readonly string[];
  /** Absolute working directory. */
  cwd: string;
  /** Written to the script's stdin, which is then closed. */
  input: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The environment the script starts from; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** What a judge script printed. */
export interface JudgeScriptOutput {
  stdout: string;
  stderr: string;
}

const MAX_STDOUT_BYTES = 8 * 1024 * 1024;
const MAX_STDERR_CHARS = 4000;
const KILL_GRACE_MS = 2000;
/** How long to keep reading a script's output after it exited. */
const DRAIN_MS = 200;

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
  await assertDirectory(options.cwd, label);
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = start(options);
    } catch (error) {
      reject(new EvaluatorError(`${label} could not start: ${(error as Error).message}`));
      return;
    }
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let stopReason: 'timeout' | 'abort' | undefined;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;

    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const stop = (reason: 'timeout' | 'abort') => {
      // A script that already exited is only waiting for its output to drain.
      if (exit) return;
      stopReason ??= reason;
      killTree(child, 'SIGTERM');
      killTimer = setTimeout(() => killTree(child, 'SIGKILL'), KILL_GRACE_MS);
      killTimer.unref();
    };
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    const onAbort = () => stop('abort');
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (error: EvaluatorError | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      if (drainTimer) clearTimeout(drainTimer);
      // Whatever the script left running in its group (`cmd &`) goes with it.
      killTree(child, 'SIGKILL');
      options.signal?.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve({ stdout: Buffer.concat(stdout).toString('utf8'), stderr });
    };

    child.stdout?.on('data', (chunk: Buffer) => {
      if (stdoutBytes >= MAX_STDOUT_BYTES) return;
      stdout.push(chunk);
      stdoutBytes += chunk.length;
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-MAX_STDERR_CHARS);
    });
    // A script may exit without reading its input; the write then fails with EPIPE.
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.input);

    child.on('error', (error) => {
      finish(new EvaluatorError(`${label} could not start: ${error.message}`));
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // A background process the script started may hold its stdout open; do not
      // wait for it past a short drain of what the script itself printed.
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        conclude();
      }, DRAIN_MS);
    });
    child.on('close', () => conclude());
    const conclude = () => {
      const code = exit?.code ?? null;
      const signal = exit?.signal ?? null;
      if (stopReason === 'timeout') {
        finish(
          new EvaluatorError(
            `${label} timed out after ${formatSeconds(options.timeoutMs)} and was stopped; make it faster or raise timeout_seconds`,
          ),
        );
      } else if (stopReason === 'abort') {
        finish(new EvaluatorError(`${label} was stopped: the run was interrupted`));
      } else if (code !== 0) {
        const how = code === null ? `was killed by signal ${signal}` : `exited with code ${code}`;
        finish(new EvaluatorError(`${label} ${how}; ${stderrExcerpt(stderr)}`));
      } else {
        finish(undefined);
      }
    };
  });
}

function start(options: RunJudgeScriptOptions): ChildProcess {
  // Its own process group (POSIX) so a timeout also stops what a shell started.
  const common = {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: 'pipe' as const,
    detached: process.platform !== 'win32',
    windowsHide: true,
  };
  if (typeof options.script === 'string') {
    return spawn(options.script, { ...common, shell: true });
  }
  const [command, ...args] = options.script;
  if (command === undefined) throw new Error('the script list is empty');
  return spawn(command, args, common);
}

/** Signals the script's whole process group, which outlives the script when it started children. */
function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, signal);
    else if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

async function assertDirectory(cwd: string, label: string): Promise<void> {
  const info = await stat(cwd).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new EvaluatorError(
      `${label} could not start: its working directory ${JSON.stringify(cwd)} does not exist; fix "cwd" (relative paths resolve against the eval file's directory)`,
    );
  }
}

function stderrExcerpt(stderr: string): string {
  const text = stderr.trim();
  if (text === '') return 'it printed nothing on stderr';
  const lines = text.split(/\r?\n/).slice(-5).join(' | ');
  return `stderr: ${lines.length > 500 ? `...${lines.slice(-497)}` : lines}`;
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}
