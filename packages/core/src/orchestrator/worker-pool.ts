/**
 * Runs async tasks with at most `concurrency` in flight. Tasks may also be
 * limited per key (e.g. per target with its own `workers`).
 */
export interface WorkerPool {
  run<T>(task: () => Promise<T>, key?: string): Promise<T>;
}

export function createWorkerPool(
  concurrency: number,
  limitsByKey: ReadonlyMap<string, number> = new Map(),
): WorkerPool {
  const global = createSemaphore(concurrency);
  const perKey = new Map<string, Semaphore>();
  for (const [key, limit] of limitsByKey) perKey.set(key, createSemaphore(limit));

  return {
    async run(task, key) {
      const keyed = key === undefined ? undefined : perKey.get(key);
      // Take the narrower per-key slot first so a saturated target never holds a global slot idle.
      const releaseKey = keyed ? await keyed.acquire() : noop;
      const releaseGlobal = await global.acquire();
      try {
        return await task();
      } finally {
        releaseGlobal();
        releaseKey();
      }
    },
  };
}

interface Semaphore {
  acquire(): Promise<() => void>;
}

function noop(): void {}

function createSemaphore(limit: number): Semaphore {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${limit}`);
  }
  let active = 0;
  // A queue with a moving head: Array#shift is O(n), and a run queues every case up front.
  let waiting: Array<() => void> = [];
  let head = 0;
  const release = () => {
    const next = waiting[head];
    if (next) {
      waiting[head++] = undefined as never;
      if (head > 1024 && head * 2 > waiting.length) {
        waiting = waiting.slice(head);
        head = 0;
      }
      next();
    } else {
      active--;
    }
  };
  return {
    acquire() {
      if (active < limit) {
        active++;
        return Promise.resolve(once(release));
      }
      // The slot passes straight to the waiter, so `active` stays unchanged.
      return new Promise((resolve) => waiting.push(() => resolve(once(release))));
    },
  };
}

function once(fn: () => void): () => void {
  let called = false;
  return () => {
    if (called) return;
    called = true;
    fn();
  };
}
