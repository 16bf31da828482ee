import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const module = fileURLToPath(new URL('../../dist/eval/heap-tuning.js', import.meta.url));

/**
 * Runs a fresh Node that starts as the bin does (young generation held at its starting size),
 * fits the heap to a run of `cases` cases, then keeps allocating what stays alive (as a run
 * keeps its cases), a chunk per turn of the event loop; returns the young generation's size in
 * MiB (both semi-spaces) at the end, and the semi-space growth factor left once the run's flags
 * are put back, as seen by a second allocation burst.
 */
async function youngGenerationAfter(cases: number): Promise<{ mib: number; afterRestore: number }> {
  const script = `
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
setFlagsFromString('--semi-space-growth-factor=1');
const { fitHeapToRun, restoreHeapFlags } = await import(${JSON.stringify(module)});
const size = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
const kept = [];
const allocate = async () => {
  for (let chunk = 0; chunk < 60; chunk++) {
    for (let i = 0; i < 5000; i++) kept.push({ id: 'case-' + chunk + '-' + i, messages: [{ role: 'user', content: 'question ' + i }] });
    await new Promise((resolve) => setImmediate(resolve));
  }
};
fitHeapToRun(${cases});
await allocate();
const mib = size();
restoreHeapFlags();
await allocate();
process.stdout.write(JSON.stringify({ mib, afterRestore: size() }));
`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  return JSON.parse(stdout);
}

// Sizes are V8's and differ between versions: V8 11 (Node 20) starts at 2 MiB and grows by
// doubling up to 32 MiB; V8 13 (Node 24) starts alike but grows up to 64 MiB and may resize the
// young generation itself after a full collection.
describe('fitting the heap to a run', () => {
  it('keeps the young generation at its starting size for an ordinary run', async () => {
    const { mib } = await youngGenerationAfter(1000);
    expect(mib).toBeLessThanOrEqual(2);
  });

  it('lets it grow once, to 2 MiB semi-spaces, for 5,000-20,000 cases', async () => {
    const ordinary = await youngGenerationAfter(1000);
    const capped = await youngGenerationAfter(10_000);
    const full = await youngGenerationAfter(50_000);
    expect(capped.mib).toBeGreaterThan(ordinary.mib);
    expect(capped.mib).toBeGreaterThanOrEqual(4);
    expect(capped.mib).toBeLessThanOrEqual(6);
    // Put back at the end: it grows no further with the same work.
    expect(capped.afterRestore).toBeLessThanOrEqual(6);
    // Runs over 20,000 cases get V8's own growth.
    expect(full.mib).toBeGreaterThan(12);
  });
});
