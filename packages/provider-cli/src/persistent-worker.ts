import { setTimeout as delay } from 'node:timers/promises';
import {
  type CallTimeout,
  callLabel,
  formatBytes,
  type LongLivedProcess,
  outputLimitError,
  ProviderError,
  type ProviderRequest,
  type ProviderResponse,
  type Sandbox,
  type SandboxProcess,
  startProcess,
  stderrSummary,
} from '@agentv/core/provider-utils';
import { LineSplitter } from './line-splitter.js';
import { excerpt, parseReplyLine } from './parse-batch-output.js';
import { requestRecord } from './placeholder-values.js';
import { startError } from './run-command.js';

/** How a worker starts its process and reports what it does. */
export interface PersistentWorkerOptions {
  /** `[cli:target#2]`: names the worker in logs and errors. */
  label: string;
  /** The case (and attempt) the worker is started for (`refund-001 attempt 1`), named in its verbose lines. */
  serving?: string;
  command: string;
  /** Where the process runs: on this machine, or inside `sandbox`. */
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Runs the process in this sandbox (`workspace.docker`) instead of on this machine. */
  sandbox?: Sandbox;
  killGraceMs?: number;
  /** Most bytes of one reply line (the target's `max_output_bytes`); a longer one stops the worker. */
  maxOutputBytes: number;
  /**
   * The target's `start_timeout_seconds` in ms: when set, the process is ready only once it
   * printed `{"ready": true}` on stdout, which it must do within this time; no case is sent
   * before. Unset: it is sent its first case at once (that case's time limit covers the start).
   */
  startTimeoutMs?: number;
  /** Stops the start (the run was interrupted). */
  signal?: AbortSignal;
  /** Masks secrets in what is logged or reported. */
  redact: (text: string) => string;
  /** Diagnostics (start, stderr lines, exit) go here when set: the verbose log. */
  log?: (line: string) => void;
}

/** A case's answer with the worker's diagnostics. */
export interface WorkerAnswer {
  response: ProviderResponse;
  /** The process's pid on this machine; undefined in a sandbox. */
  pid?: number;
  wallTimeMs: number;
}

/** How a worker's process ended. */
interface AgentExit {
  exitCode?: number;
  signalName?: string;
  /** "out of memory (limit 512m)" when a sandbox's memory ceiling killed it. */
  oomMessage?: string;
}

/** The process a worker drives: a child of this machine or a process in a sandbox. */
interface AgentProcess {
  /** `pid 123`, `exec 3f2a…`: names it in messages. */
  readonly label: string;
  readonly pid?: number;
  readonly stdin: NodeJS.WritableStream;
  readonly stdout: NodeJS.ReadableStream;
  readonly stderr: NodeJS.ReadableStream;
  readonly exited: boolean;
  readonly done: Promise<AgentExit>;
  kill(): Promise<unknown>;
  stop(): Promise<unknown>;
}

/** What a start waiting for the process's ready line is waiting for. */
interface Readying {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** What the case of a request is waiting for. */
interface Pending {
  id: string;
  resolve: (answer: WorkerAnswer) => void;
  reject: (error: unknown) => void;
  started: number;
}

const STDERR_TAIL_CHARS = 4096;
/** What a persistent agent that stops reading after an answer does wrong. */
const PERSISTENT_LOOP_HINT =
  'a mode: persistent agent keeps reading request lines from stdin until it ends, answering each, and exits only then';

/** How long an ended process's output is read before its end is reported. */
const OUTPUT_DRAIN_MS = 500;

/**
 * One process of a persistent agent: started once, answering one case at a
 * time as a JSON line on stdin and a JSON line on stdout. A worker whose
 * process died, was killed or broke the protocol is `dead`; the pool starts a
 * new one in its place.
 */
export class PersistentWorker {
  readonly cwd: string;
  private readonly options: PersistentWorkerOptions;
  private process: AgentProcess | undefined;
  private pending: Pending | undefined;
  private readying: Readying | undefined;
  /** Stdout lines that were not the ready line, and the last of them (masked), for its error. */
  private ignoredBeforeReady = 0;
  private lastIgnored = '';
  private stderrTail = '';
  private broken = false;
  /**
   * The case (and attempt) the worker was last given, until its process exits: verbose lines
   * name it. Kept after the answer and while the worker is being stopped, as stderr lines
   * written just before the response line may be read after it (two pipes); the next case
   * replaces it.
   */
  private serving: string | undefined;

  private constructor(options: PersistentWorkerOptions) {
    this.options = options;
    this.cwd = options.cwd;
    this.serving = options.serving;
  }

  /**
   * A verbose line about this worker: `[cli:t#2] refund-001 attempt 1 stderr: …` once it
   * serves a case (a worker serves one at a time; with several workers lines interleave),
   * `[cli:t#2] stderr: …` before its first case and once its process has exited.
   */
  private log(text: string): void {
    const { log, label } = this.options;
    if (!log) return;
    log(this.serving === undefined ? `${label} ${text}` : `${label} ${this.serving} ${text}`);
  }

  /** Starts the process; throws a `ProviderError` when it cannot start. */
  static async start(options: PersistentWorkerOptions): Promise<PersistentWorker> {
    const worker = new PersistentWorker(options);
    if (options.sandbox !== undefined) {
      worker.process = await startInSandbox(options, options.sandbox);
    } else {
      try {
        worker.process = onThisMachine(
          await startProcess({
            command: options.command,
            cwd: options.cwd,
            env: options.env,
            ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
          }),
        );
      } catch (error) {
        throw startError(error, options.cwd);
      }
    }
    worker.attach(worker.process);
    if (options.startTimeoutMs !== undefined) {
      try {
        await worker.waitReady(options.startTimeoutMs, options.signal);
      } catch (error) {
        await worker.kill();
        throw error;
      }
    }
    return worker;
  }

  /** Resolves once the process printed `{"ready": true}`; rejects when it exits or takes longer than `ms`. */
  private waitReady(ms: number, signal: AbortSignal | undefined): Promise<void> {
    const child = this.process!;
    const { label } = this.options;
    const started = performance.now();
    return new Promise<void>((resolve, reject) => {
      const onAbort = () =>
        this.fail(
          new ProviderError(`${label} was stopped: the run was interrupted`, { retryable: false }),
        );
      const timer = setTimeout(() => {
        const printed =
          this.ignoredBeforeReady === 0
            ? 'it printed nothing on stdout'
            : `it printed ${this.ignoredBeforeReady} other stdout line(s), the last: ${this.lastIgnored}`;
        const error = new ProviderError(
          this.withStderr(
            `${label} (${child.label}) did not print its ready line {"ready": true} within ${ms / 1000}s (start_timeout_seconds) and was killed; ${printed}`,
          ),
          {
            retryable: false,
            failureClass: 'timeout',
            hint: 'make the agent print the line {"ready": true} on stdout once it has loaded, or raise start_timeout_seconds',
          },
        );
        startLimitErrors.add(error);
        this.fail(error);
      }, ms);
      const cleanUp = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      this.readying = {
        resolve: () => {
          cleanUp();
          this.log(`ready after ${Math.round(performance.now() - started)} ms`);
          resolve();
        },
        reject: (error) => {
          cleanUp();
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();
    });
  }

  /** False once the process exited, was killed, or broke the protocol. */
  get alive(): boolean {
    return !this.broken && this.process !== undefined && !this.process.exited;
  }

  /**
   * Sends one request and resolves with the response line for it. Rejects with
   * a retryable `ProviderError` when the process exits or the case times out
   * (the process group is killed), and a non-retryable one for a line that is
   * not a reply for this case, or when `request.signal` stops the case.
   * `timeout` is the call's (core's `callTimeout`: `--agent-timeout` wins over `timeout_seconds`).
   */
  ask(request: ProviderRequest, timeout: CallTimeout): Promise<WorkerAnswer> {
    const child = this.process!;
    const id = request.evalCaseId;
    const timeoutMs = timeout.seconds === undefined ? undefined : timeout.seconds * 1000;
    if (child.exited) {
      return Promise.reject(
        new ProviderError(this.withStderr(`${this.options.label} (${child.label}) has exited`), {
          retryable: true,
        }),
      );
    }
    return new Promise<WorkerAnswer>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () =>
        this.fail(
          new ProviderError(`${this.options.label} was stopped: the run was interrupted`, {
            retryable: false,
          }),
        );
      const cleanUp = () => {
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
      };
      this.pending = {
        id,
        started: performance.now(),
        resolve: (answer) => {
          cleanUp();
          resolve(answer);
        },
        reject: (error) => {
          cleanUp();
          reject(error);
        },
      };
      if (timeoutMs !== undefined) {
        timer = setTimeout(
          () =>
            this.fail(
              new ProviderError(
                this.withStderr(
                  `timed out after ${timeoutMs / 1000}s: ${this.options.label} (${child.label}) gave no response line for case "${id}" and was killed`,
                ),
                {
                  retryable: true,
                  failureClass: 'timeout',
                  hint: `${timeout.hint}, or make the agent answer faster; the worker is restarted for the next case`,
                },
              ),
            ),
          timeoutMs,
        );
      }
      request.signal?.addEventListener('abort', onAbort, { once: true });
      this.serving = callLabel(request);
      const line = JSON.stringify({
        ...requestRecord(request),
        // Counted from 1, as everywhere AgentV shows attempts (`request.attempt` is 0-based).
        attempt: request.attempt + 1,
        repeat: request.repeat ?? 1,
        // A conversation's turn: its id and this turn's user message; the agent may keep the rest.
        ...(request.conversation === undefined
          ? {}
          : {
              conversation_id: request.conversation.id,
              turn: request.conversation.turn,
              message: request.conversation.messages.map((message) => message.content).join('\n'),
            }),
      });
      child.stdin.write(`${line}\n`);
    });
  }

  /** EOF on stdin, then SIGTERM and SIGKILL if the process does not exit. */
  async stop(): Promise<void> {
    await this.process?.stop();
  }

  /** Kills the process group; resolves when no process of it is left. */
  async kill(): Promise<void> {
    this.broken = true;
    await this.process?.kill();
  }

  /** Fails the pending case or start (if any) and kills the process: its state is unknown now. */
  private fail(error: ProviderError): void {
    const pending = this.pending;
    const readying = this.readying;
    this.pending = undefined;
    this.readying = undefined;
    this.broken = true;
    this.process?.kill();
    pending?.reject(error);
    readying?.reject(error);
  }

  private attach(child: AgentProcess): void {
    const { label, redact } = this.options;
    const where = this.options.sandbox === undefined ? '' : ' in its container';
    this.log(`started ${child.label} in ${this.cwd}${where}`);
    // A case sent as the worker exits fails the write (EPIPE): its exit fails that case. A worker
    // that closed its stdin and lives on would never get the case: that fails it.
    child.stdin.on('error', () => {
      const pending = this.pending;
      if (pending === undefined) return;
      setTimeout(() => {
        if (this.pending !== pending || child.exited) return;
        this.fail(
          new ProviderError(
            this.withStderr(
              `${label} (${child.label}) closed its stdin, so case "${pending.id}" could not be sent to it`,
            ),
            { retryable: true, hint: PERSISTENT_LOOP_HINT },
          ),
        );
      }, OUTPUT_DRAIN_MS).unref();
    });
    // Lines are read with a ceiling: a process writing one endless line cannot exhaust memory.
    const stdout = new LineSplitter((line) => this.onLine(line), {
      maxLineBytes: this.options.maxOutputBytes,
      overLimit: 'stop',
      onTooLong: (_, bytes) => this.onTooLong(child.label, bytes),
    });
    child.stdout.on('data', (chunk: string) => stdout.push(chunk));
    child.stdout.on('end', () => stdout.end());
    const stderr = new LineSplitter(
      (line, cut) => {
        const shown = redact(cut ? `${line} … (line cut)` : line);
        this.stderrTail = `${this.stderrTail}${shown}\n`.slice(-STDERR_TAIL_CHARS);
        this.log(`stderr: ${shown}`);
      },
      { maxLineBytes: STDERR_TAIL_CHARS, overLimit: 'cut' },
    );
    child.stderr.on('data', (chunk: string) => stderr.push(chunk));
    child.stderr.on('end', () => stderr.end());
    // What the process wrote before it ended is read first: its last answer line (written just
    // before it exits) is that case's answer, and its stderr explains its end. `done` can come
    // before a pipe's last data; a leftover holding a pipe open is given half a second.
    const read = (stream: NodeJS.ReadableStream) =>
      new Promise<void>((resolve) => {
        stream.once('end', resolve);
        stream.once('close', resolve);
      });
    const outputRead = Promise.all([read(child.stdout), read(child.stderr)]);
    const ended = child.done.then(async (exit) => {
      await Promise.race([outputRead, delay(OUTPUT_DRAIN_MS, undefined, { ref: false })]);
      return exit;
    });
    void ended.then((exit) => {
      // A worker that exits while answering is that case's news; otherwise no case's.
      if (this.pending === undefined) this.serving = undefined;
      const how =
        exit.oomMessage !== undefined
          ? `was killed: ${exit.oomMessage}`
          : exit.exitCode === undefined
            ? `was killed by signal ${exit.signalName ?? 'unknown'}`
            : `exited with code ${exit.exitCode}`;
      this.log(`${child.label} ${how}`);
      const pending = this.pending;
      if (pending === undefined && this.readying === undefined) return;
      const during =
        pending === undefined ? 'before its ready line' : `while answering case "${pending.id}"`;
      if (exit.oomMessage !== undefined) {
        // The same agent (on the same case) would hit the ceiling again: not retried.
        this.fail(
          new ProviderError(this.withStderr(`${label} (${child.label}) ${how} ${during}`), {
            retryable: false,
            hint: 'raise workspace.docker.memory, or make the agent use less memory; the worker is restarted for the next case',
          }),
        );
        return;
      }
      if (pending === undefined) {
        this.fail(
          new ProviderError(this.withStderr(`${label} (${child.label}) ${how} ${during}`), {
            retryable: true,
            ...(exit.exitCode === undefined ? {} : { exitCode: exit.exitCode }),
            hint: 'with start_timeout_seconds the agent prints {"ready": true} on stdout once it has loaded; run the command by hand to find out why it stops',
          }),
        );
        return;
      }
      this.fail(
        new ProviderError(
          this.withStderr(`${label} (${child.label}) ${how} while answering case "${pending.id}"`),
          {
            retryable: true,
            ...(exit.exitCode === undefined ? {} : { exitCode: exit.exitCode }),
            hint:
              exit.exitCode === 0
                ? `${PERSISTENT_LOOP_HINT}; the worker is restarted for the next attempt`
                : 'the worker is restarted for the next attempt; run the command by hand and send it the request line (see --verbose) to find out why it stops',
          },
        ),
      );
    });
  }

  /** A stdout line passed `maxOutputBytes`: the worker is stopped, failing the case it serves. */
  private onTooLong(process: string, bytes: number): void {
    const { label, maxOutputBytes } = this.options;
    const pending = this.pending;
    const line = pending
      ? `the response line for case "${pending.id}"`
      : this.readying
        ? 'a stdout line before its ready line'
        : 'a stdout line';
    const error = outputLimitError(
      `${label}: ${line} passed max_output_bytes (${formatBytes(maxOutputBytes)}) after ${formatBytes(bytes)}; the worker (${process}) was stopped`,
    );
    // Said by the case it fails; a line while nothing waits is said here.
    if (pending === undefined && this.readying === undefined) this.log(error.message);
    this.fail(error);
  }

  private onLine(line: string): void {
    const pending = this.pending;
    if (line.trim() === '') return;
    const { label } = this.options;
    if (pending === undefined) {
      const readying = this.readying;
      if (readying !== undefined && isReadyLine(line)) {
        this.readying = undefined;
        readying.resolve();
        return;
      }
      const shown = excerpt(this.options.redact(line));
      if (readying !== undefined) {
        this.ignoredBeforeReady++;
        this.lastIgnored = shown;
      }
      const when = readying === undefined ? 'while no case was waiting' : 'before the ready line';
      this.log(`stdout line ${when}, ignored: ${shown}`);
      return;
    }
    const reply = parseReplyLine(line, `response line for case "${pending.id}"`);
    if (!reply.ok) {
      const hint = isReadyLine(line)
        ? 'the agent printed a ready line, which AgentV waits for only with start_timeout_seconds: set it on the target, or do not print the line'
        : undefined;
      this.fail(protocolError(this.options.redact(`${label}: ${reply.problem}`), hint));
      return;
    }
    if (reply.id !== pending.id) {
      this.fail(
        protocolError(
          this.options.redact(
            `${label}: response line for case "${pending.id}" has unknown id "${reply.id}": ${excerpt(this.options.redact(line))}`,
          ),
        ),
      );
      return;
    }
    this.pending = undefined;
    const pid = this.process!.pid;
    const answer: WorkerAnswer = {
      response: reply.response,
      ...(pid === undefined ? {} : { pid }),
      wallTimeMs: Math.round(performance.now() - pending.started),
    };
    // Stderr lines the agent wrote just before this reply can be read after it (two pipes),
    // but they were readable when the reply was, so they are read in this same poll of the
    // event loop. The case is answered after that poll (the next case is sent on the answer),
    // so the verbose log shows them as this case's lines, not the next one's.
    setImmediate(() => pending.resolve(answer));
  }

  private withStderr(message: string): string {
    // The error's own line first (Node prints it near the top of a crash), as code_judge errors do.
    const summary = stderrSummary(this.stderrTail);
    return summary ? `${message}; ${summary}` : message;
  }
}

/** A child process of this machine as a worker drives it. */
function onThisMachine(child: LongLivedProcess): AgentProcess {
  return {
    label: `pid ${child.pid}`,
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    get exited() {
      return child.exited;
    },
    done: child.done,
    kill: () => child.kill(),
    stop: () => child.stop(),
  };
}

/** Starts the worker's process in `sandbox`; a `ProviderError` when it cannot. */
async function startInSandbox(
  options: PersistentWorkerOptions,
  sandbox: Sandbox,
): Promise<AgentProcess> {
  if (sandbox.spawn === undefined) {
    throw new ProviderError(
      `${options.label}: this sandbox runtime cannot keep a process running, which mode: persistent needs`,
      { retryable: false, hint: 'use mode: single for cases whose workspace runs in this sandbox' },
    );
  }
  let started: SandboxProcess;
  try {
    started = await sandbox.spawn({
      command: options.command,
      cwd: options.cwd,
      env: Object.fromEntries(
        Object.entries(options.env).filter(
          (entry): entry is [string, string] => entry[1] !== undefined,
        ),
      ),
      ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const hint = (error as { hint?: unknown }).hint;
    throw new ProviderError(
      `${options.label}: could not start the agent in its container: ${reason}`,
      {
        retryable: false,
        cause: error,
        hint: typeof hint === 'string' ? hint : 'check the container engine (`docker info`)',
      },
    );
  }
  const done = started.done.then((outcome): AgentExit => {
    if (outcome.oomKilled) return { oomMessage: outcome.message ?? 'out of memory' };
    return outcome.exitCode === undefined
      ? { signalName: 'SIGKILL' }
      : { exitCode: outcome.exitCode };
  });
  return {
    label: started.label,
    stdin: started.stdin,
    stdout: started.stdout,
    stderr: started.stderr,
    get exited() {
      return started.exited;
    },
    done,
    kill: () => started.kill(),
    stop: () => started.stop(),
  };
}

const startLimitErrors = new WeakSet<Error>();

/** Whether `error` is a start that missed `start_timeout_seconds`. */
export function missedStartLimit(error: unknown): error is ProviderError {
  return error instanceof Error && startLimitErrors.has(error);
}

/** `{"ready": true}`, the line a process started with `start_timeout_seconds` prints once loaded. */
function isReadyLine(line: string): boolean {
  try {
    const value: unknown = JSON.parse(line);
    return (
      typeof value === 'object' && value !== null && (value as { ready?: unknown }).ready === true
    );
  } catch {
    return false;
  }
}

function protocolError(message: string, hint?: string): ProviderError {
  return new ProviderError(message, {
    retryable: false,
    hint:
      hint ??
      'a persistent agent writes exactly one JSON line {"id": "<the request\'s id>", "text": "..."} per request line to stdout; write logs to stderr',
  });
}
