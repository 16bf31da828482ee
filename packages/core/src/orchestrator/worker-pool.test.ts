import { describe, expect, it } from 'vitest';
import { createWorkerPool } from './worker-pool.js';

/**
 * Tasks that run until the test releases them, so what runs at once is observed
 * at each step without timers.
 */
function gate() {
  const running: Array<{ group: string; release: () => void }> = [];
  const started: string[] = [];
  const peaks = new Map<string, number>();
  const count = (group: string) => running.filter((entry) => entry.group === group).length;
  const task = (group: string, name: string) => () =>
    new Promise<void>((resolve) => {
      started.push(name);
      running.push({ group, release: resolve });
      peaks.set(group, Math.max(peaks.get(group) ?? 0, count(group)));
    });
  return {
    task,
    started,
    running: (group?: string) => (group === undefined ? running.length : count(group)),
    peak: (group: string) => peaks.get(group) ?? 0,
    /** Ends the task that has run longest. */
    releaseOldest: () => running.shift()?.release(),
  };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('createWorkerPool', () => {
  it('never runs more tasks at once than its concurrency, starts them in order and runs them all', async () => {
    const pool = createWorkerPool(3);
    const tasks = gate();
    const names = Array.from({ length: 20 }, (_, index) => `task-${index}`);
    const all = Promise.all(names.map((name) => pool.run(tasks.task('all', name))));
    for (let remaining = names.length; remaining > 0; remaining--) {
      await settle();
      expect(tasks.running()).toBe(Math.min(3, remaining));
      tasks.releaseOldest();
    }
    await all;
    expect(tasks.started).toEqual(names);
    expect(tasks.peak('all')).toBe(3);
  });

  it('applies a per-key limit below the global one', async () => {
    const pool = createWorkerPool(8, new Map([['slow-target', 2]]));
    const tasks = gate();
    const all = Promise.all([
      ...Array.from({ length: 10 }, (_, index) =>
        pool.run(tasks.task('limited', `limited-${index}`), 'slow-target'),
      ),
      ...Array.from({ length: 10 }, (_, index) =>
        pool.run(tasks.task('free', `free-${index}`), 'other'),
      ),
    ]);
    for (let remaining = 20; remaining > 0; remaining--) {
      await settle();
      expect(tasks.running('limited')).toBeLessThanOrEqual(2);
      expect(tasks.running()).toBeGreaterThan(0);
      expect(tasks.running()).toBeLessThanOrEqual(8);
      tasks.releaseOldest();
    }
    await all;
    expect(tasks.started).toHaveLength(20);
    expect(tasks.peak('limited')).toBe(2);
    expect(tasks.peak('free')).toBeGreaterThan(2);
  });

  it('frees the slot of a task that throws', async () => {
    const pool = createWorkerPool(1);
    await expect(pool.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(pool.run(async () => 'next')).resolves.toBe('next');
  });

  it('rejects a concurrency that is not a positive integer', () => {
    expect(() => createWorkerPool(0)).toThrow(/positive integer/);
  });
});
