import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import type { Writable } from 'node:stream';
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
    const child = spawn(
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

/** Sends one line (`+<pgid>`, `-<pgid>` or `bye`) to the watchdog, if it runs. */
export function tellWatchdog(line: string): void {
  pipe?.write(`${line}\n`);
}
