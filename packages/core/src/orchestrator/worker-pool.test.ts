import { describe, expect, it } from 'vitest';
import { createWorkerPool } from './worker-pool.js';

function tracker() {
  let active = 0;
  let peak = 0;
  const task = async (ms = 5) => {
    active++;
    peak = Math.max(peak, active);
    await new Promise((resolve) => setTimeout(resolve, ms));
    active--;
  };
  return { task, peak: () => peak };
}

describe('createWorkerPool', () => {
  it('never runs more tasks at once than its concurrency, and runs them all', async () => {
    const pool = createWorkerPool(3);
    const { task, peak } = tracker();
    let finished = 0;
    await Promise.all(
      Array.from({ length: 20 }, () => pool.run(() => task().then(() => finished++))),
    );
    expect(peak()).toBe(3);
    expect(finished).toBe(20);
  });

  it('applies a per-key limit below the global one', async () => {
    const pool = createWorkerPool(8, new Map([['slow-target', 2]]));
    const limited = tracker();
    const free = tracker();
    await Promise.all([
      ...Array.from({ length: 10 }, () => pool.run(() => limited.task(), 'slow-target')),
      ...Array.from({ length: 10 }, () => pool.run(() => free.task(), 'other')),
    ]);
    expect(limited.peak()).toBe(2);
    expect(free.peak()).toBeGreaterThan(2);
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
