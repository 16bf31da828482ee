import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { execChild } from './exec-child.js';
import { signalGroup } from './process-group.js';
import { SPAWN_HELPER_SCRIPT } from './spawn-helper-script.js';

/** How a process started by the helper ended. */
export interface HelperExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A process the helper was asked to start. */
export interface HelperChild {
  /** Resolves with the pid once started; rejects with spawn's error when it could not start. */
  readonly started: Promise<number>;
  /** Resolves once the process exited and was reaped (only after `started` resolved). */
  readonly ended: Promise<HelperExit>;
}

/** What to start: as `spawn` takes it, with the capture files' descriptors for stdout and stderr. */
export interface HelperRequest {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  stdout: number;
  stderr: number;
  stdin?: string;
}

/** Processes started directly before the helper is started: runs this short never start it. */
const START_AFTER_CALLS = 16;

interface Pending {
  resolveStarted(pid: number): void;
  rejectStarted(error: Error): void;
  resolveEnded(exit: HelperExit): void;
  pid?: number;
}

/**
 * One-shot processes are started by a small helper process (see `SPAWN_HELPER_SCRIPT`) rather
 * than by AgentV itself. On Linux, Node's `spawn` forks the calling process and waits until the
 * child has exec'd: a fork of AgentV (tens of MiB of heap and page tables) costs more than a fork
 * of the helper, and it blocks AgentV's event loop for its duration. Through the helper, the
 * fork happens in a process of its own, in parallel with AgentV's work on other cases.
 *
 * Only on Linux (the child's output goes to AgentV's capture files, opened again by the helper
 * through `/proc`), and only after `START_AFTER_CALLS` processes in this run, so that a short
 * run does not pay for starting Node twice; until the helper says it is ready, and wherever it
 * cannot be used (it failed to start, died, or cannot open the capture files), processes are
 * started directly. `AGENTV_SPAWN_HELPER=0` turns it off, `=1` starts it with the first process.
 */
export function spawnHelper(graceMs: number): SpawnHelper | undefined {
  if (state === 'off') return undefined;
  if (state === 'unset') {
    const setting = process.env.AGENTV_SPAWN_HELPER;
    if (process.platform !== 'linux' || setting === '0') {
      state = 'off';
      return undefined;
    }
    state = 'counting';
    if (setting === '1') calls = START_AFTER_CALLS;
  }
  if (helper !== undefined) return helper.ready ? helper : undefined;
  if (++calls < START_AFTER_CALLS) return undefined;
  helper = SpawnHelper.start(graceMs);
  if (helper === undefined) state = 'off';
  return undefined;
}

let state: 'unset' | 'counting' | 'off' = 'unset';
let calls = 0;
let helper: SpawnHelper | undefined;

/** Waits until the helper is ready (for tests that force it with `AGENTV_SPAWN_HELPER=1`). */
export async function spawnHelperReady(graceMs: number): Promise<boolean> {
  spawnHelper(graceMs);
  const current = helper;
  if (current === undefined) return false;
  await current.whenReady;
  return current.ready;
}

export class SpawnHelper {
  ready = false;
  readonly whenReady: Promise<void>;
  private readonly pending = new Map<number, Pending>();
  private next = 0;
  private buffered = '';
  private markReady!: () => void;

  private constructor(
    child: ChildProcess,
    private readonly stdin: Writable,
    private readonly stdout: Readable,
  ) {
    this.whenReady = new Promise((resolve) => {
      this.markReady = resolve;
    });
    stdout.setEncoding('utf8');
    stdout.on('data', (chunk: string) => this.read(chunk));
    const fail = () => this.failed();
    child.on('error', fail);
    // 'close', not 'exit': after the last line it wrote was read, so that a process it reported
    // started just before it died is stopped, never started a second time here.
    child.on('close', fail);
    stdin.on('error', fail);
  }

  static start(graceMs: number): SpawnHelper | undefined {
    let child: ChildProcess;
    try {
      child = execChild(
        process.execPath,
        ['-e', SPAWN_HELPER_SCRIPT, String(process.pid), String(graceMs)],
        {
          cwd: '/',
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
          // Its own session: a Ctrl-C or hang-up of AgentV's terminal does not reach it.
          detached: true,
          stdio: ['pipe', 'pipe', 'ignore'],
        },
      );
    } catch {
      return undefined;
    }
    const created = new SpawnHelper(child, child.stdin!, child.stdout!);
    // Nothing of the helper keeps AgentV running, unless it waits for one of its processes.
    child.unref();
    created.unrefPipes();
    return created;
  }

  /** Starts `request` in the helper. */
  spawn(request: HelperRequest): HelperChild {
    const id = this.next++;
    let pending!: Pending;
    const started = new Promise<number>((resolve, reject) => {
      pending = { resolveStarted: resolve, rejectStarted: reject, resolveEnded: () => {} };
    });
    const ended = new Promise<HelperExit>((resolve) => {
      pending.resolveEnded = resolve;
    });
    if (this.pending.size === 0) this.refPipes();
    this.pending.set(id, pending);
    const env: string[] = [];
    // Inherited keys included, undefined values left out: as `spawn` reads an environment.
    for (const key in request.env) {
      const value = request.env[key];
      if (value !== undefined) env.push(`${key}=${value}`);
    }
    const message: Record<string, unknown> = {
      i: id,
      f: request.file,
      a: request.args,
      c: request.cwd,
      e: env,
      o: request.stdout,
      r: request.stderr,
    };
    if (request.stdin !== undefined) message.n = request.stdin;
    this.stdin.write(`${JSON.stringify(message)}\n`);
    return { started, ended };
  }

  private read(chunk: string): void {
    let from = 0;
    let end = chunk.indexOf('\n');
    while (end !== -1) {
      const line = this.buffered + chunk.slice(from, end);
      this.buffered = '';
      this.answer(JSON.parse(line));
      from = end + 1;
      end = chunk.indexOf('\n', from);
    }
    this.buffered += chunk.slice(from);
  }

  private answer(message: HelperAnswer | 'ready'): void {
    if (message === 'ready') {
      this.ready = true;
      this.markReady();
      return;
    }
    const pending = this.pending.get(message.i);
    if (pending === undefined) return;
    if (message.p !== undefined) {
      pending.pid = message.p;
      pending.resolveStarted(message.p);
    } else if (message.x !== undefined || message.s !== undefined) {
      this.settle(message.i, pending, { code: message.x ?? null, signal: message.s ?? null });
    } else {
      this.forget(message.i);
      if (message.u === 1) this.stop();
      pending.rejectStarted(startError(message, message.u === 1));
    }
  }

  private settle(id: number, pending: Pending, exit: HelperExit): void {
    this.forget(id);
    pending.resolveEnded(exit);
  }

  private forget(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.unrefPipes();
  }

  // The helper is gone (killed, or it could not start): processes are started directly from
  // now on. Those it reported started are stopped, as a process that lost its parent's report
  // of how it ended; the others count as not started. (A helper killed in the instant between
  // a process's start and its report of the pid leaves that process unknown to AgentV.)
  private failed(): void {
    this.stop();
    for (const [id, pending] of [...this.pending]) {
      if (pending.pid === undefined) {
        this.forget(id);
        pending.rejectStarted(helperGone());
      } else {
        signalGroup(pending.pid, 'SIGKILL');
        this.settle(id, pending, { code: null, signal: 'SIGKILL' });
      }
    }
  }

  private stop(): void {
    if (helper === this) {
      helper = undefined;
      state = 'off';
    }
    this.ready = false;
    this.markReady();
    this.stdin.destroy();
  }

  private refPipes(): void {
    (this.stdout as Readable & { ref?: () => void }).ref?.();
  }

  private unrefPipes(): void {
    (this.stdout as Readable & { unref?: () => void }).unref?.();
    (this.stdin as Writable & { unref?: () => void }).unref?.();
  }
}

interface HelperAnswer {
  i: number;
  p?: number;
  x?: number | null;
  s?: NodeJS.Signals | null;
  e?: {
    message: string;
    code?: string;
    errno?: number;
    syscall?: string;
    path?: string;
    spawnargs?: string[];
  };
  t?: { name: string; message: string; code?: string };
  u?: 1;
}

/** Marks an error as the helper's own fault: the caller starts the process itself instead. */
export const HELPER_FAULT = Symbol('agentv.spawnHelperFault');

/** Spawn's error as the helper reported it: the same message and fields as a direct spawn's. */
function startError(message: HelperAnswer, helperFault: boolean): Error {
  if (message.e !== undefined) {
    const { message: text, ...fields } = message.e;
    return Object.assign(new Error(text), fields);
  }
  const thrown = message.t ?? { name: 'Error', message: 'the spawn helper could not start it' };
  const error =
    thrown.name === 'TypeError' ? new TypeError(thrown.message) : new Error(thrown.message);
  if (thrown.code !== undefined) Object.assign(error, { code: thrown.code });
  if (helperFault) Object.assign(error, { [HELPER_FAULT]: true });
  return error;
}

function helperGone(): Error {
  return Object.assign(new Error('the spawn helper exited before it started the process'), {
    [HELPER_FAULT]: true,
  });
}
