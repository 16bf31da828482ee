import { randomBytes } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { shellQuote } from '../util/shell-quote.js';

/**
 * A cgroup (v2) that holds one running process and everything it starts, including processes
 * that left its process group with `setsid`: the cgroup can be emptied where a process group
 * cannot. Made under AgentV's own cgroup, in a folder named `agentv-<pid>-<random>`.
 */
export interface CallCgroup {
  /** The cgroup's folder. */
  readonly dir: string;
  /**
   * Shell text to put before a command line: it moves the shell into the cgroup before the
   * command runs, so nothing the command starts can be outside it. A failed move is silent
   * (the command then runs in a process group only).
   */
  readonly enter: string;
  /**
   * True while a process (zombies aside) runs in the cgroup or one below it. Ask once the
   * process that entered it has exited: an empty cgroup then stays empty.
   */
  populated(): boolean;
  /**
   * True when a process ran in the cgroup since this call took it: the shell entered it, so
   * the whole process group is in it (and `populated` speaks for the group). False where
   * that cannot be told.
   */
  entered(): boolean;
  /**
   * SIGTERM: to each process of the cgroup for which `only` (default: all) is true;
   * SIGKILL: to every process in and below it.
   */
  signal(signal: 'SIGTERM' | 'SIGKILL', only?: (pid: number) => boolean): void;
  /** Gives the cgroup back for another call once it is empty. */
  release(): void;
}

interface CgroupRoot {
  /** AgentV's own cgroup, where the watchdog looks for folders of killed runs. */
  parent: string;
  /** This process's folder in it, holding one cgroup per running call. */
  root: string;
}

/** A call cgroup, with what every call in it needs made once. */
interface Slot {
  dir: string;
  enter: string;
  /** Its cgroup.events, kept open: reading it again from the start is one system call. */
  events?: number;
  /** Its cpu.stat, kept open likewise; null when it cannot be read. */
  cpuStat?: number | null;
}

let root: CgroupRoot | undefined | null = null;
let count = 0;
// Empty cgroups of finished calls, ready for the next one: no mkdir/rmdir per call.
const free: Slot[] = [];
const slots: Slot[] = [];

/**
 * Where this process makes its call cgroups, found and made on first use; undefined where
 * that is not possible (not Linux, no cgroup v2, a kernel without `cgroup.kill` (before
 * 5.14), no write access, or `AGENTV_CGROUPS=0`).
 */
export function cgroupRoot(): CgroupRoot | undefined {
  if (root === null) root = makeRoot();
  return root ?? undefined;
}

/**
 * True when processes run here start in a cgroup of their own, which they enter through
 * `/bin/sh` (see `CallCgroup.enter`): an argument list then runs through the shell as well.
 */
export function callsEnterCgroups(): boolean {
  return cgroupRoot() !== undefined;
}

/** A cgroup for one call, or undefined where cgroups cannot be used. */
export function acquireCallCgroup(): CallCgroup | undefined {
  const base = cgroupRoot();
  if (base === undefined) return undefined;
  let slot = free.pop();
  if (slot === undefined) {
    const dir = join(base.root, `call-${++count}`);
    try {
      mkdirSync(dir);
    } catch {
      // A limit on descendants (cgroup.max.descendants) or the folder gone: a process group only.
      return undefined;
    }
    slot = { dir, enter: `{ echo $$ >${shellQuote(join(dir, 'cgroup.procs'))}; } 2>/dev/null; ` };
    slots.push(slot);
  }
  return new CallCgroupLease(slot);
}

// A class, not closures: it lives as long as its process runs, once per call.
class CallCgroupLease implements CallCgroup {
  private released = false;
  // Seen empty after the process exited: nothing can be left in it, no need to look again.
  private empty = false;

  // The cgroup's CPU time when the call took it (slots are reused): it grows once a process runs in it.
  private readonly usageAtStart: number | undefined;

  constructor(private readonly slot: Slot) {
    this.usageAtStart = slotUsage(slot);
  }

  get dir(): string {
    return this.slot.dir;
  }

  get enter(): string {
    return this.slot.enter;
  }

  populated(): boolean {
    this.empty = !slotPopulated(this.slot);
    return !this.empty;
  }

  entered(): boolean {
    if (this.usageAtStart === undefined) return false;
    const usage = slotUsage(this.slot);
    return usage !== undefined && usage > this.usageAtStart;
  }

  signal(signal: 'SIGTERM' | 'SIGKILL', only?: (pid: number) => boolean): void {
    signalCgroup(this.slot.dir, signal, only);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    // One that cannot be emptied is not handed out again; it is removed on the way out.
    if (this.empty || !this.populated()) free.push(this.slot);
  }
}

const eventsBuffer = Buffer.alloc(256);
const POPULATED = Buffer.from('populated 1');

function slotPopulated(slot: Slot): boolean {
  try {
    slot.events ??= openSync(join(slot.dir, 'cgroup.events'), 'r');
    const length = readSync(slot.events, eventsBuffer, 0, eventsBuffer.length, 0);
    return eventsBuffer.subarray(0, length).includes(POPULATED);
  } catch {
    return isPopulated(slot.dir);
  }
}

const statBuffer = Buffer.alloc(512);

/** `usage_usec` of the slot's cpu.stat (a cgroup v2 core file, kept by the kernel to the µs). */
function slotUsage(slot: Slot): number | undefined {
  if (slot.cpuStat === null) return undefined;
  try {
    slot.cpuStat ??= openSync(join(slot.dir, 'cpu.stat'), 'r');
    const length = readSync(slot.cpuStat, statBuffer, 0, statBuffer.length, 0);
    const match = /^usage_usec (\d+)$/m.exec(statBuffer.toString('latin1', 0, length));
    return match === null ? undefined : Number(match[1]);
  } catch {
    slot.cpuStat = null;
    return undefined;
  }
}

/**
 * On the way out (synchronous): kills every process left in this process's cgroups and
 * removes them; those whose processes are still dying are left to the watchdog.
 */
export function removeCallCgroups(): void {
  if (root === null || root === undefined) return;
  const { root: dir } = root;
  if (isPopulated(dir)) signalCgroup(dir, 'SIGKILL');
  for (const slot of slots) {
    try {
      if (slot.events !== undefined) closeSync(slot.events);
      if (typeof slot.cpuStat === 'number') closeSync(slot.cpuStat);
    } catch {
      // Closed already.
    }
  }
  slots.length = 0;
  free.length = 0;
  root = undefined;
  removeTree(dir);
}

/** The root, undefined where there can be none, null when this could not be told yet. */
function makeRoot(): CgroupRoot | undefined | null {
  if (process.platform !== 'linux' || process.env.AGENTV_CGROUPS === '0') return undefined;
  let dir: string | undefined;
  try {
    const parent = ownCgroupDir();
    if (parent === undefined) return undefined;
    // Moving a process needs write access to the cgroup.procs of the common ancestor: ours.
    accessSync(join(parent, 'cgroup.procs'), constants.W_OK);
    dir = join(parent, `agentv-${process.pid}-${randomBytes(4).toString('hex')}`);
    mkdirSync(dir);
    // cgroup.kill (Linux 5.14) empties a cgroup at once, where processes may fork meanwhile.
    accessSync(join(dir, 'cgroup.kill'), constants.W_OK);
    return { parent, root: dir };
  } catch (error) {
    if (dir !== undefined) removeTree(dir);
    // Out of file descriptors or memory for now: the next process tries again. Anything
    // else (no permission, a read-only mount, no cgroup2 file system): process groups only.
    return TRANSIENT_ERRORS.has((error as NodeJS.ErrnoException).code ?? '') ? null : undefined;
  }
}

const TRANSIENT_ERRORS = new Set(['EMFILE', 'ENFILE', 'ENOMEM', 'EAGAIN', 'EINTR']);

/** This process's cgroup v2 folder, from /proc/self/cgroup and the cgroup2 mount. */
function ownCgroupDir(): string | undefined {
  const line = readFileSync('/proc/self/cgroup', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('0::'));
  if (line === undefined) return undefined;
  const path = line.slice(3);
  for (const mount of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    // Fields: id parent major:minor root mount-point options [optional...] - type source options
    const [before, after] = mount.split(' - ');
    if (after === undefined || !after.startsWith('cgroup2 ')) continue;
    const fields = before!.split(' ');
    const mountRoot = unescapeMountPath(fields[3] ?? '');
    const mountPoint = unescapeMountPath(fields[4] ?? '');
    if (mountRoot === '/') return join(mountPoint, path);
    if (path === mountRoot || path.startsWith(`${mountRoot}/`)) {
      return join(mountPoint, path.slice(mountRoot.length));
    }
  }
  return undefined;
}

// mountinfo writes a space, tab, newline and backslash in paths as octal escapes.
function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) =>
    String.fromCharCode(Number.parseInt(octal, 8)),
  );
}

function isPopulated(dir: string): boolean {
  try {
    return readFileSync(join(dir, 'cgroup.events'), 'utf8').includes('populated 1');
  } catch {
    return false;
  }
}

function signalCgroup(
  dir: string,
  signal: 'SIGTERM' | 'SIGKILL',
  only: (pid: number) => boolean = () => true,
): void {
  try {
    if (signal === 'SIGKILL') {
      writeFileSync(join(dir, 'cgroup.kill'), '1');
      return;
    }
    for (const line of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n')) {
      const pid = Number(line);
      if (line === '' || !only(pid)) continue;
      try {
        process.kill(pid, signal);
      } catch {
        // Exited meanwhile.
      }
    }
  } catch {
    // The cgroup is gone.
  }
}

/** Removes a cgroup folder and those below it, deepest first. */
function removeTree(dir: string): void {
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) removeTree(join(dir, entry.name));
    }
    rmdirSync(dir);
  } catch {
    // EBUSY: processes still dying in it; the watchdog removes it once they are gone.
  }
}
