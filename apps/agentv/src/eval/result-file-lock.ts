import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { link, mkdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { isAgentvError } from '@agentv/core';
import { displayPath, UsageError } from '@agentv/core/internal';
import { describeWriteError } from './write-failure.js';

/** The lock a run holds on its result file while it writes it. */
export interface ResultFileLock {
  /** Absolute path of the lock file, `<result file>.lock`. */
  readonly path: string;
  /** Removes the lock file if it is still this run's. Safe to call more than once. */
  release(): void;
}

/** What a lock file holds: who writes the result file. */
interface LockOwner {
  pid: number;
  /** When the run took the lock (ISO 8601). */
  started: string;
  host: string;
  /** Tells this run's lock from another one with the same pid. */
  token: string;
  /** The process's start time in clock ticks after boot (Linux), to tell a reused pid. */
  ticks?: string;
}

/**
 * Takes the lock on `resultPath` (a file `<resultPath>.lock` holding the pid,
 * host and start time) before a run writes it, so two runs never write one
 * result file. A lock held by a live process refuses the run with a
 * `UsageError`; a lock left by a process that no longer runs (AgentV killed
 * with `kill -9`) is taken over after `note` says so. The lock goes when
 * `release` is called or the process exits.
 */
export async function lockResultFile(
  resultPath: string,
  cwd: string,
  note: (message: string) => void,
): Promise<ResultFileLock> {
  const lockPath = `${resultPath}.lock`;
  const shown = displayPath(cwd, resultPath);
  const shownLock = displayPath(cwd, lockPath);
  const owner: LockOwner = {
    pid: process.pid,
    started: new Date().toISOString(),
    host: hostname(),
    token: randomBytes(8).toString('hex'),
  };
  const ticks = processStat(process.pid)?.ticks;
  if (ticks !== undefined) owner.ticks = ticks;
  const content = `${JSON.stringify(owner)}\n`;
  const none: ResultFileLock = { path: lockPath, release: () => {} };
  // A device or a folder (`--out /dev/stdout`) is not a file two runs could both rewrite.
  const existing = await stat(resultPath).catch(() => undefined);
  if (existing !== undefined && !existing.isFile()) return none;
  try {
    await mkdir(path.dirname(resultPath), { recursive: true });
    if (!(await takeLock(lockPath, content, shown, shownLock, note))) {
      throw new UsageError(`could not take over the lock ${shownLock}`, {
        hint: `another run keeps taking it; if no agentv run is writing ${shown}, delete ${shownLock}`,
      });
    }
  } catch (error) {
    if (isAgentvError(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if ((code === 'EACCES' || code === 'EPERM') && existing !== undefined) {
      // A folder where no file may be created, holding a result file that may be written:
      // the lock is a safeguard, not a reason to refuse the run.
      note(
        `cannot create ${shownLock} (${describeWriteError(error)}); a second run writing ${shown} at the same time would not be refused`,
      );
      return none;
    }
    throw new UsageError(`cannot write results to ${shown}: ${describeWriteError(error)}`, {
      hint: 'pass a result file in a folder you can write to, on a disk with free space',
      cause: error,
    });
  }

  const release = () => {
    process.off('exit', release);
    try {
      if (readFileSync(lockPath, 'utf8') === content) unlinkSync(lockPath);
    } catch {
      // Gone already, or never readable again: nothing of this run is left to remove.
    }
  };
  // `exit` also runs on process.exit (a second Ctrl-C); only kill -9 leaves the lock behind.
  process.on('exit', release);
  return { path: lockPath, release };
}

/**
 * Creates the lock file, or takes over one whose process is gone; throws a
 * `UsageError` when a live run holds it. Resolves to false when other runs
 * kept taking the lock between our steps.
 */
async function takeLock(
  lockPath: string,
  content: string,
  shown: string,
  shownLock: string,
  note: (message: string) => void,
): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await createLockFile(lockPath, content)) return true;
    const text = await readFile(lockPath, 'utf8').catch(() => undefined);
    if (text === undefined) continue; // released meanwhile
    const holder = parseOwner(text);
    if (holder === undefined) {
      throw new UsageError(`${shown} is locked by ${shownLock}, which is not an agentv lock`, {
        hint: `if no agentv run is writing ${shown}, delete ${shownLock}`,
      });
    }
    if (holdsLock(holder)) {
      const where = holder.host === hostname() ? '' : ` on ${holder.host}`;
      throw new UsageError(
        `${shown} is being written by another agentv run (pid ${holder.pid}${where}, started ${holder.started})`,
        {
          hint: `wait for that run to end, or write to another file; if no agentv run is writing ${shown}, delete ${shownLock}`,
        },
      );
    }
    // Only the lock just read is removed: another run may have taken it over meanwhile.
    if ((await readFile(lockPath, 'utf8').catch(() => undefined)) !== text) continue;
    note(
      `${shownLock} was left by an agentv run that is no longer running (pid ${holder.pid}, started ${holder.started}); taking it over`,
    );
    await unlink(lockPath).catch(() => {});
  }
  return false;
}

/**
 * Creates the lock file with its content in one step: written to a temp file,
 * then linked to the lock's name, which fails when the lock exists. Readers
 * never see an empty lock. Resolves to false when the lock exists.
 */
async function createLockFile(lockPath: string, content: string): Promise<boolean> {
  const temp = `${lockPath}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temp, content, { flag: 'wx' });
  try {
    await link(temp, lockPath);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
    // A file system without hard links: an exclusive create, then the content.
    try {
      await writeFile(lockPath, content, { flag: 'wx' });
      return true;
    } catch (fallback) {
      if ((fallback as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw fallback;
    }
  } finally {
    await rm(temp, { force: true });
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (
      typeof value.pid === 'number' &&
      typeof value.started === 'string' &&
      typeof value.host === 'string'
    ) {
      return value as LockOwner;
    }
  } catch {
    // Not JSON: not a lock of ours.
  }
  return undefined;
}

/** Whether the process that wrote the lock still runs. */
function holdsLock(holder: LockOwner): boolean {
  // Another machine's process (a shared folder) cannot be checked: assume it runs.
  if (holder.host !== hostname()) return true;
  // This very process does not hold a lock it is trying to take: its pid was reused (a container).
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = processStat(holder.pid);
  if (stat === undefined) return true; // no /proc: kill(0) is the best answer there is
  // A zombie has ended; a process that started at another time got the same pid.
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return holder.ticks === undefined || holder.ticks === stat.ticks;
}

/**
 * State and start time (clock ticks after boot) of process `pid`, from /proc
 * (Linux); undefined elsewhere.
 */
function processStat(pid: number): { state: string; ticks: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; state is field 3, starttime field 22.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, ticks: fields[19]! };
  } catch {
    return undefined;
  }
}
