import { tmpdir } from 'node:os';
import type { Writable } from 'node:stream';
import { execChild } from './exec-child.js';
import { WATCHDOG_SCRIPT } from './watchdog-script.js';

/** Where the watchdog finds this process's cgroups (see `cgroupRoot`). */
export interface WatchdogCgroups {
  parent: string;
  root: string;
}

let pipe: Writable | undefined | null = null;

/**
 * Starts the watchdog (see `WATCHDOG_SCRIPT`) unless it runs already. It is a child of this
 * process in a session of its own, so neither a Ctrl-C, a hang-up nor a signal to AgentV's
 * process group reaches it; it holds no handle that keeps this process alive, and gets an
 * environment of PATH alone. Where it cannot start, AgentV runs without it.
 */
export function startWatchdog(graceMs: number, cgroups: WatchdogCgroups | undefined): void {
  if (pipe !== null) return;
  pipe = undefined;
  if (process.platform === 'win32') return;
  try {
    const child = execChild(
      '/bin/sh',
      [
        '-c',
        WATCHDOG_SCRIPT,
        'agentv-watchdog',
        String(process.pid),
        tmpdir(),
        String(Math.ceil(graceMs / 100)),
        cgroups?.parent ?? '',
        cgroups?.root ?? '',
      ],
      {
        cwd: '/',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
        detached: true,
        stdio: ['pipe', 'ignore', 'ignore'],
      },
    );
    const stdin = child.stdin!;
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (pipe === stdin) pipe = retryLater(error);
    });
    child.unref();
    // The watchdog may be gone (killed by someone): writes then fail, and nothing more is sent.
    stdin.on('error', () => {
      if (pipe === stdin) pipe = undefined;
    });
    (stdin as Writable & { unref?: () => void }).unref?.();
    pipe = stdin;
  } catch (error) {
    pipe = retryLater(error as NodeJS.ErrnoException);
  }
}

// Out of file descriptors, processes or memory for now: the next process started tries again.
const TRANSIENT_ERRORS = new Set(['EMFILE', 'ENFILE', 'EAGAIN', 'ENOMEM']);

function retryLater(error: NodeJS.ErrnoException): null | undefined {
  return TRANSIENT_ERRORS.has(error.code ?? '') ? null : undefined;
}

// Ends wait for the next start, or the end of this turn of the event loop, so that a steady
// run writes once per process and wakes the watchdog once (an end told late is harmless).
let pendingEnds = '';
let flushScheduled = false;

/** Tells the watchdog that process group `pgid` started (written at once). */
export function watchdogGroupStarted(pgid: number): void {
  send(`+${pgid}\n`);
}

/** Tells the watchdog that process group `pgid` is gone. */
export function watchdogGroupEnded(pgid: number): void {
  if (pipe === undefined || pipe === null) return;
  pendingEnds += `-${pgid}\n`;
  if (flushScheduled) return;
  flushScheduled = true;
  setImmediate(() => {
    flushScheduled = false;
    if (pendingEnds !== '') send('');
  }).unref();
}

/** Tells the watchdog that AgentV stopped its processes itself and is exiting. */
export function watchdogBye(): void {
  send('bye\n');
}

function send(text: string): void {
  pipe?.write(`${pendingEnds}${text}`);
  pendingEnds = '';
}
