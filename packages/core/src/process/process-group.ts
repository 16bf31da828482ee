import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import type { CallCgroup } from './call-cgroup.js';

/**
 * Stops every process of one process group, and of its cgroup when it has one (processes
 * that left the group with `setsid` included): SIGTERM, then SIGKILL after a grace period.
 */
export interface ProcessGroupTerminator {
  /** Sends SIGTERM to the group now and schedules SIGKILL after the grace period. Idempotent. */
  terminate(): void;
  /**
   * Call once the group leader has exited. Resolves when no live process is
   * left in the group or cgroup, terminating leftovers (background children) first.
   */
  settle(): Promise<void>;
}

const POLL_MS = 20;
const AFTER_KILL_WAIT_MS = 1000;

/** Creates a terminator for the group led by `pgid` (a child spawned `detached`). */
export function createProcessGroupTerminator(
  pgid: number,
  graceMs: number,
  cgroup?: CallCgroup,
): ProcessGroupTerminator {
  return new GroupTerminator(pgid, graceMs, cgroup);
}

// A class, not closures: it lives as long as its process runs, once per call.
class GroupTerminator implements ProcessGroupTerminator {
  private terminated = false;
  private forceKilled = false;
  private killTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pgid: number,
    private readonly graceMs: number,
    private readonly cgroup: CallCgroup | undefined,
  ) {}

  terminate(): void {
    if (this.terminated) return;
    this.terminated = true;
    const { pgid, cgroup } = this;
    signalGroup(pgid, 'SIGTERM');
    // Those that left the group: the group's own members must not get SIGTERM twice (to many
    // programs a second one means "quit now").
    cgroup?.signal('SIGTERM', (pid) => processGroupOf(pid) !== pgid);
    this.killTimer = setTimeout(() => {
      this.forceKilled = true;
      signalGroup(pgid, 'SIGKILL');
      cgroup?.signal('SIGKILL');
    }, this.graceMs);
  }

  async settle(): Promise<void> {
    if (this.live()) {
      this.terminate();
      while (!this.forceKilled && this.live()) await delay(POLL_MS);
      const deadline = Date.now() + AFTER_KILL_WAIT_MS;
      while (this.live() && Date.now() < deadline) await delay(POLL_MS);
    }
    clearTimeout(this.killTimer);
  }

  // The cgroup holds the whole group, unless the shell could not enter it: only then is the
  // group looked for among all processes (a read of every /proc/<pid>/stat, milliseconds).
  private live(): boolean {
    const { cgroup } = this;
    if (cgroup === undefined) return groupHasLiveMembers(this.pgid);
    if (cgroup.populated()) return true;
    return !cgroup.entered() && groupHasLiveMembers(this.pgid);
  }
}

/** Sends `signal` to every process of group `pgid`; a group that is gone is no error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
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

/** The process group of process `pid`; undefined when it is gone or cannot be read. */
function processGroupOf(pid: number): number | undefined {
  return readProcessStatus(String(pid))?.pgid;
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
