import { constants, lstatSync, type Stats } from 'node:fs';
import { Worker } from 'node:worker_threads';

/** What a restore reads of an `lstat`: a `Stats`, or the same fields copied from another thread. */
export type PathStats = Pick<
  Stats,
  'mode' | 'ino' | 'size' | 'mtimeMs' | 'ctimeMs' | 'isFile' | 'isDirectory' | 'isSymbolicLink'
>;

/**
 * Lists of at least this many paths are split with a helper thread. On the machines AgentV was
 * measured on, an `lstat` costs 4–7 µs of kernel time (a deep path, a virtual machine): 5,000 of
 * them, one workspace's reset, took 35 ms on one thread and 17 ms on two. Shorter lists are
 * not worth a message to the thread.
 */
export const PARALLEL_MIN_PATHS = 2000;

/**
 * How long this thread waits for the helper's half (~20 ms) before doing it itself, and not
 * using the helper again (it died, or is stuck).
 */
const HELPER_TIMEOUT_MS = 2000;

/**
 * Path lists the helper keeps (the oldest is dropped first, on both sides): one per pooled
 * workspace slot being reset in turn, so each is sent once.
 */
const KEPT_LISTS = 8;

/** The helper's answer when it does not hold the list asked for (this thread then does the work). */
const UNKNOWN_LIST = 2;

/** Fields per path in the shared results: kind, mode, ino, size, mtimeMs, ctimeMs. */
const FIELDS = 6;
const MISSING = 0;
const FOUND = 1;
/** The helper's `lstat` failed otherwise than "not there": this thread calls it again itself. */
const FAILED = 2;

/**
 * The helper thread: given a list of paths once (by id), then ranges of it to `lstat` into a
 * shared buffer, after which it sets the flag and wakes this thread. "Not there" (ENOENT, or
 * ENOTDIR: a file where a folder of the path was) is MISSING; any other failure is FAILED.
 */
const HELPER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { lstatSync } = require('node:fs');
const lists = new Map();
parentPort.on('message', (message) => {
  if (message.paths !== undefined) {
    if (lists.size === ${KEPT_LISTS}) lists.delete(lists.keys().next().value);
    lists.set(message.id, message.paths);
    return;
  }
  const { id, from, to, buffer } = message;
  const paths = lists.get(id);
  const out = new Float64Array(buffer, 8);
  const flag = new Int32Array(buffer, 0, 1);
  if (paths === undefined) {
    Atomics.store(flag, 0, ${UNKNOWN_LIST});
    Atomics.notify(flag, 0);
    return;
  }
  for (let i = from; i < to; i++) {
    const o = (i - from) * ${FIELDS};
    let stats;
    try {
      stats = lstatSync(paths[i], { throwIfNoEntry: false });
    } catch (error) {
      out[o] = error.code === 'ENOTDIR' ? ${MISSING} : ${FAILED};
      continue;
    }
    if (stats === undefined) {
      out[o] = ${MISSING};
      continue;
    }
    out[o] = ${FOUND};
    out[o + 1] = stats.mode;
    out[o + 2] = stats.ino;
    out[o + 3] = stats.size;
    out[o + 4] = stats.mtimeMs;
    out[o + 5] = stats.ctimeMs;
  }
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});
`;

interface Helper {
  worker: Worker;
  online: boolean;
  /** Path lists the helper holds, by id, oldest first (it drops them in the same order). */
  sent: Map<readonly string[], number>;
}

let helper: Helper | undefined | null = null;
let nextListId = 0;

/**
 * `lstat` of every path of `paths` (without following a last symbolic link), as `lstatSync`
 * would give it; undefined where nothing is there (or a file is where a folder of the path
 * was). Any other failure (in either thread) is `'retry'`: the caller reads that path again
 * itself when it gets to it, and then gets the error `lstatSync` throws (or the stats, when a
 * folder made unreadable was fixed by then). Long lists (PARALLEL_MIN_PATHS) are
 * split with a helper thread, started by the first long list and used once it is up; this
 * thread waits for the helper's half, synchronously. Pass the same array again to spare
 * sending it (a restore plan's paths never change).
 */
export function lstatPaths(
  paths: readonly string[],
  minPaths = PARALLEL_MIN_PATHS,
): (PathStats | undefined | 'retry')[] {
  const results: (PathStats | undefined | 'retry')[] = new Array(paths.length);
  const ready = paths.length >= minPaths ? readyHelper() : undefined;
  // The helper takes the second half: this thread starts on the first at once.
  const split = ready === undefined ? paths.length : Math.floor(paths.length / 2);
  let buffer: SharedArrayBuffer | undefined;
  if (ready !== undefined) {
    buffer = new SharedArrayBuffer(8 + (paths.length - split) * FIELDS * 8);
    let id = ready.sent.get(paths);
    if (id === undefined) {
      id = ++nextListId;
      if (ready.sent.size === KEPT_LISTS) ready.sent.delete(ready.sent.keys().next().value!);
      ready.sent.set(paths, id);
      ready.worker.postMessage({ id, paths });
    }
    ready.worker.postMessage({ id, from: split, to: paths.length, buffer });
  }
  for (let i = 0; i < split; i++) results[i] = lstatHere(paths[i] as string);
  if (buffer === undefined) return results;
  const flag = new Int32Array(buffer, 0, 1);
  const answer = Atomics.wait(flag, 0, 0, HELPER_TIMEOUT_MS);
  if (answer === 'timed-out' || Atomics.load(flag, 0) === UNKNOWN_LIST) {
    // Stuck or gone: not used again. Not holding the list (never expected): sent again next time.
    if (answer === 'timed-out') stopHelper();
    else ready?.sent.delete(paths);
    for (let i = split; i < paths.length; i++) results[i] = lstatHere(paths[i] as string);
    return results;
  }
  const out = new Float64Array(buffer, 8);
  for (let i = split; i < paths.length; i++) {
    const o = (i - split) * FIELDS;
    const kind = out[o];
    results[i] =
      kind === FOUND
        ? new CopiedStats(
            out[o + 1] as number,
            out[o + 2] as number,
            out[o + 3] as number,
            out[o + 4] as number,
            out[o + 5] as number,
          )
        : kind === MISSING
          ? undefined
          : 'retry';
  }
  return results;
}

/** `lstatSync`, undefined where nothing is there, 'retry' where it failed otherwise. */
function lstatHere(path: string): PathStats | undefined | 'retry' {
  try {
    return lstatSync(path, NO_THROW);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? undefined : 'retry';
  }
}

const NO_THROW = { throwIfNoEntry: false } as const;

/** The helper when it is up; starts it (for a later call) when there is none yet. */
function readyHelper(): Helper | undefined {
  if (helper === null) startHelper();
  return helper?.online === true ? helper : undefined;
}

function startHelper(): void {
  let worker: Worker;
  try {
    // Not AgentV's flags (`--input-type=module` would make the source an ES module).
    worker = new Worker(HELPER_SOURCE, { eval: true, execArgv: [] });
  } catch {
    helper = undefined;
    return;
  }
  const started: Helper = { worker, online: false, sent: new Map() };
  helper = started;
  // It never keeps AgentV running (it prints nothing: piped stdio streams would keep it).
  worker.unref();
  worker.once('online', () => {
    started.online = true;
  });
  const gone = () => {
    if (helper === started) helper = undefined;
  };
  worker.once('error', gone);
  worker.once('exit', gone);
}

function stopHelper(): void {
  const current = helper;
  helper = undefined;
  if (current) void current.worker.terminate();
}

/** Resolves once the helper thread is up (true), or could not start (false); for tests. */
export async function parallelLstatReady(): Promise<boolean> {
  readyHelper();
  for (let waited = 0; waited < 20_000; waited += 10) {
    if (helper === undefined) return false;
    if (helper?.online === true) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

/** An `lstat` made in the helper thread: the fields a restore reads. */
class CopiedStats implements PathStats {
  constructor(
    readonly mode: number,
    readonly ino: number,
    readonly size: number,
    readonly mtimeMs: number,
    readonly ctimeMs: number,
  ) {}

  isFile(): boolean {
    return (this.mode & constants.S_IFMT) === constants.S_IFREG;
  }

  isDirectory(): boolean {
    return (this.mode & constants.S_IFMT) === constants.S_IFDIR;
  }

  isSymbolicLink(): boolean {
    return (this.mode & constants.S_IFMT) === constants.S_IFLNK;
  }
}
