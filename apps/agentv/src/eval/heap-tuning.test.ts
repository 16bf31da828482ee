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

describe('fitting the heap to a run', () => {
  it('keeps the young generation at its starting size for an ordinary run', async () => {
    const { mib, afterRestore } = await youngGenerationAfter(1000);
    expect(mib).toBe(2);
    expect(afterRestore).toBe(2);
  });

  it('lets it grow once, to 4 MiB semi-spaces, for 5,000-20,000 cases, and no further', async () => {
    const { mib, afterRestore } = await youngGenerationAfter(10_000);
    expect(mib).toBe(8);
    // Put back: it grows no more (V8 never shrinks it by itself here).
    expect(afterRestore).toBe(8);
  });

  it('lets it grow as far as V8 does for runs over 20,000 cases', async () => {
    const { mib } = await youngGenerationAfter(50_000);
    expect(mib).toBeGreaterThan(8);
  });
});
