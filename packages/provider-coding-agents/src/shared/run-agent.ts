import { setTimeout as delay } from 'node:timers/promises';
import { startProcess, type TraceEvent } from '@agentv/core/provider-utils';
import type { AgentEventReader, AgentInvocation, AgentOutcome } from './agent-adapter.js';
import { createLineSplitter } from './jsonl-lines.js';
import { textEvent } from './tool-events.js';

/** A running agent CLI, on this machine or in a sandbox. */
export interface AgentProcess {
  readonly stdin: NodeJS.WritableStream;
  readonly stdout: NodeJS.ReadableStream;
  readonly stderr: NodeJS.ReadableStream;
  /** Resolves when it has ended; `message` says why a sandbox killed it ("out of memory (limit 512m)"). */
  readonly done: Promise<{ exitCode?: number; signalName?: string; message?: string }>;
  /** Stops it and everything it started. */
  kill(): Promise<unknown>;
}

/** One run of an agent's CLI. */
export interface AgentRunOptions {
  /** Path of the CLI (absolute on this machine; as the sandbox finds it in one). */
  executable: string;
  /**
   * Starts the process elsewhere (in a sandbox) with `command`; default: on this machine, in its
   * own process group (core's `startProcess`), with `env` and `cwd`.
   */
  start?: (command: string[]) => Promise<AgentProcess>;
  invocation: AgentInvocation;
  /** The process's whole environment. */
  env: Record<string, string>;
  cwd: string;
  reader: AgentEventReader;
  /** The agent's name in trace events about lines that are not JSON. */
  displayName: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Most bytes of stdout read; the agent is stopped past it. */
  maxOutputBytes: number;
  /** Masks secrets in the transcript. */
  mask: (text: string) => string;
  /** Called after each event the reader took, while the agent runs (to read `reader.spent`). */
  onEvent?: () => void;
  /**
   * Called once the agent has started and its stdin was written, while it runs: the time for
   * work that is not the agent's and must not delay it (the next call's config home).
   */
  onStarted?: () => void;
}

/** How a run ended and what the reader made of the stream. */
export interface AgentRunResult {
  outcome: AgentOutcome;
  /** Every line the agent wrote on stdout, masked, one per line. */
  transcript: string;
  exitCode?: number;
  signalName?: string;
  /** The end of stderr (at most 64 KiB), unmasked. */
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** Bytes of stdout when the agent was stopped for passing `maxOutputBytes`. */
  outputExceeded?: number;
  /** Why a sandbox killed it, when it did ("out of memory (limit 512m)"). */
  killedBecause?: string;
}

const STDERR_KEPT = 64 * 1024;
/** How long an ended agent's stderr is read before its end is reported. */
const STDERR_DRAIN_MS = 500;

/**
 * Runs the agent's CLI without a shell in its own process group (core's `startProcess`), writes
 * the invocation's stdin and closes it, and reads stdout one JSON line at a time as it arrives,
 * handing each parsed event to the reader with the time it was read. A line that is not JSON
 * becomes a trace `error` event naming the agent, never a parse error. At the time limit, when
 * the run's signal aborts, or past `maxOutputBytes`, the whole process group is stopped
 * (SIGTERM, then SIGKILL). Rejects only when the process could not start (the spawn error).
 */
export async function runAgent(options: AgentRunOptions): Promise<AgentRunResult> {
  const { reader, mask } = options;
  const command = [options.executable, ...options.invocation.args];
  const proc: AgentProcess = options.start
    ? await options.start(command)
    : await startProcess({ command, cwd: options.cwd, env: options.env, anotherFollows: true });
  let timedOut = false;
  let aborted = false;
  let outputExceeded: number | undefined;
  const transcript: string[] = [];
  const badLines: TraceEvent[] = [];
  let lineNumber = 0;

  const splitter = createLineSplitter((line) => {
    lineNumber++;
    const receivedAt = new Date();
    transcript.push(mask(line));
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      const excerpt = line.length > 200 ? `${line.slice(0, 200)}…` : line;
      badLines.push(
        textEvent(
          'error',
          `line ${lineNumber} of ${options.displayName}'s output is not JSON: ${mask(excerpt)}`,
          receivedAt,
        ),
      );
      return;
    }
    reader.push(event, receivedAt);
    options.onEvent?.();
  });

  let stdoutBytes = 0;
  proc.stdout.on('data', (chunk: string) => {
    if (outputExceeded !== undefined) return;
    stdoutBytes += Buffer.byteLength(chunk);
    if (stdoutBytes > options.maxOutputBytes) {
      outputExceeded = stdoutBytes;
      void proc.kill();
      return;
    }
    splitter.push(chunk);
  });
  let stderr = '';
  proc.stderr.on('data', (chunk: string) => {
    stderr += chunk;
    if (stderr.length > STDERR_KEPT * 2) stderr = stderr.slice(-STDERR_KEPT);
  });
  const ended = (stream: NodeJS.ReadableStream) =>
    new Promise<void>((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
    });
  const stdoutEnded = ended(proc.stdout);
  const stderrEnded = ended(proc.stderr);

  // A process that never reads its stdin must not fail the write.
  proc.stdin.on('error', () => {});
  if (options.invocation.stdin !== undefined) proc.stdin.write(options.invocation.stdin);
  proc.stdin.end();

  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          void proc.kill();
        }, options.timeoutMs);
  const onAbort = () => {
    aborted = true;
    void proc.kill();
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  options.onStarted?.();

  const exit = await proc.done;
  clearTimeout(timer);
  options.signal?.removeEventListener('abort', onAbort);
  // `done` can come before a pipe's last data: every event is read, and the end of stderr that
  // explains a failure (a leftover holding stderr open is given half a second).
  await stdoutEnded;
  await Promise.race([stderrEnded, delay(STDERR_DRAIN_MS, undefined, { ref: false })]);
  if (outputExceeded === undefined) splitter.end();

  const outcome = reader.finish({
    ...(exit.exitCode === undefined ? {} : { exitCode: exit.exitCode }),
    stderr: stderr.length > STDERR_KEPT ? stderr.slice(-STDERR_KEPT) : stderr,
  });
  if (badLines.length > 0) outcome.trace = mergeByTime(outcome.trace, badLines);
  return {
    outcome,
    transcript: transcript.length === 0 ? '' : `${transcript.join('\n')}\n`,
    ...(exit.exitCode === undefined ? {} : { exitCode: exit.exitCode }),
    ...(exit.signalName === undefined ? {} : { signalName: exit.signalName }),
    stderr: stderr.length > STDERR_KEPT ? stderr.slice(-STDERR_KEPT) : stderr,
    timedOut,
    aborted,
    ...(outputExceeded === undefined ? {} : { outputExceeded }),
    ...(exit.message === undefined ? {} : { killedBecause: exit.message }),
  };
}

/** Both lists in time order; events of the same time keep the reader's first. */
function mergeByTime(trace: TraceEvent[], extra: TraceEvent[]): TraceEvent[] {
  return [...trace, ...extra]
    .map((event, index) => ({ event, index, at: Date.parse(event.timestamp) }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map(({ event }) => event);
}
