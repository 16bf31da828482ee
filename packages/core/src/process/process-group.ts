import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

/** Stops every process of one process group: SIGTERM, then SIGKILL after a grace period. */
export interface ProcessGroupTerminator {
  /** Sends SIGTERM to the group now and schedules SIGKILL after the grace period. Idempotent. */
  terminate(): void;
  /**
   * Call once the group leader has exited. Resolves when no live process is
   * left in the group, terminating leftovers (background children) first.
   */
  settle(): Promise<void>;
}

const POLL_MS = 20;
const AFTER_KILL_WAIT_MS = 1000;

/** Creates a terminator for the group led by `pgid` (a child spawned `detached`). */
export function createProcessGroupTerminator(
  pgid: number,
  graceMs: number,
): ProcessGroupTerminator {
  let terminated = false;
  let forceKilled = false;
  let killTimer: NodeJS.Timeout | undefined;

  const forceKill = () => {
    forceKilled = true;
    signalGroup(pgid, 'SIGKILL');
  };

  const terminate = () => {
    if (terminated) return;
    terminated = true;
    signalGroup(pgid, 'SIGTERM');
    killTimer = setTimeout(forceKill, graceMs);
  };

  const settle = async () => {
    if (groupHasLiveMembers(pgid)) {
      terminate();
      while (!forceKilled && groupHasLiveMembers(pgid)) await delay(POLL_MS);
      const deadline = Date.now() + AFTER_KILL_WAIT_MS;
      while (groupHasLiveMembers(pgid) && Date.now() < deadline) await delay(POLL_MS);
    }
    clearTimeout(killTimer);
  };

  return { terminate, settle };
}

/** Process groups of processes still running, so none outlives AgentV. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * Registers the group led by `pgid` to be killed with SIGKILL if AgentV exits
 * while it runs; returns the function that unregisters it.
 */
export function trackProcessGroup(pgid: number): () => void {
  liveGroups.add(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // `process.exit` (a second Ctrl-C, a fatal error) skips the orderly SIGTERM/SIGKILL
    // of running processes; an exit handler may only do synchronous work, and
    // process.kill is synchronous, so their groups are killed here instead.
    process.once('exit', () => {
      for (const group of liveGroups) signalGroup(group, 'SIGKILL');
    });
  }
  return () => liveGroups.delete(pgid);
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * True while a process of group `pgid` is running. On Linux, zombies do not
 * count: where PID 1 does not reap orphans they linger in the group forever.
 */
export function groupHasLiveMembers(pgid: number): boolean {
  // Usually the group is gone (ESRCH): an error per finished process, whose stack is never read.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
  if (process.platform !== 'linux') return true;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const status = readProcessStatus(entry);
    if (status && status.pgid === pgid && status.state !== 'Z' && status.state !== 'X') {
      return true;
    }
  }
  return false;
}

function readProcessStatus(pid: string): { state: string; pgid: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name in parentheses may contain spaces; the fields after it do not.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const pgid = Number(fields[2]);
  return state === undefined || Number.isNaN(pgid) ? undefined : { state, pgid };
}
