import {
  acquireCallCgroup,
  type CallCgroup,
  cgroupRoot,
  removeCallCgroups,
} from './call-cgroup.js';
import { signalGroup } from './process-group.js';
import {
  startWatchdog,
  watchdogBye,
  watchdogGroupEnded,
  watchdogGroupStarted,
} from './watchdog.js';

/**
 * What keeps one started process from outliving AgentV: its cgroup where cgroups can be used,
 * the record of its process group, and the watchdog that stops both if AgentV is killed.
 */
export interface ProcessGuard {
  /** Shell text to put before the command line ('' without a cgroup; see `CallCgroup.enter`). */
  readonly enter: string;
  /** The process's cgroup, when it has one. */
  readonly cgroup: CallCgroup | undefined;
  /** Call once the process started, with its pid (the leader of its new process group). */
  started(pgid: number): void;
  /** Call when the process and what it left are gone, or when it never started. */
  ended(): void;
}

/** Process groups of processes still running, killed if AgentV exits while they run. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * Guards the next process to start. The first call finds the cgroups (see `cgroupRoot`) and
 * starts the watchdog with `graceMs` as its grace period, so a run that starts no process pays
 * for neither. The watchdog is told about a process group only when the process has no
 * cgroup: killing AgentV's cgroups stops every process in one.
 */
export function guardProcess(graceMs: number): ProcessGuard {
  startWatchdog(graceMs, cgroupRoot());
  installExitHook();
  return new Guard(acquireCallCgroup());
}

// A class, not closures: it lives as long as its process runs, once per call.
class Guard implements ProcessGuard {
  readonly enter: string;
  private group: number | undefined;
  private done = false;

  constructor(readonly cgroup: CallCgroup | undefined) {
    this.enter = cgroup?.enter ?? '';
  }

  started(pgid: number): void {
    this.group = pgid;
    liveGroups.add(pgid);
    if (this.cgroup === undefined) watchdogGroupStarted(pgid);
  }

  ended(): void {
    if (this.done) return;
    this.done = true;
    const group = this.group;
    if (group !== undefined) {
      liveGroups.delete(group);
      if (this.cgroup === undefined) watchdogGroupEnded(group);
    }
    this.cgroup?.release();
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // `process.exit` (a second Ctrl-C, a fatal error) skips the orderly SIGTERM/SIGKILL of
  // running processes; an exit handler may only do synchronous work, and process.kill and
  // cgroup.kill are synchronous, so what still runs is killed here instead. `bye` tells the
  // watchdog that nothing is left for it to stop (it still removes cgroups not yet empty).
  process.once('exit', () => {
    for (const group of liveGroups) signalGroup(group, 'SIGKILL');
    liveGroups.clear();
    removeCallCgroups();
    watchdogBye();
  });
}
