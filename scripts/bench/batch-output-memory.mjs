// Issue 4: parsing a 100,000-line batch output keeps memory bounded by the records kept, not by
// the file size. Parses the same large file twice — keeping every record, and keeping 1,000 — and
// reports the heap each needs. Run with --expose-gc (scripts/bench.mjs does).
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseBatchOutput } from '../../packages/provider-cli/dist/parse-batch-output.js';
import { report } from './support.mjs';

const LINES = 100_000;
const dir = mkdtempSync(path.join(tmpdir(), 'agentv-bench-output-'));
const file = path.join(dir, 'output.jsonl');
// Every line carries 2 KiB that the parser must read but not keep (an ignored field).
const padding = 'x'.repeat(2048);
const now = new Date().toISOString();
const lines = [];
for (let index = 0; index < LINES; index++) {
  lines.push(
    JSON.stringify({
      id: `case-${index}`,
      text: `answer ${index}`,
      trace: [{ type: 'tool_call', timestamp: now, name: 'lookup', input: { index } }],
      debug_blob: padding,
    }),
  );
}
writeFileSync(file, `${lines.join('\n')}\n`);
lines.length = 0;
const fileMiB = statSync(file).size / 2 ** 20;

async function heapFor(keep) {
  globalThis.gc();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 1);
  // The requested ids, each with its index in the returned list.
  const ids = new Map(Array.from({ length: keep }, (_, index) => [`case-${index}`, index]));
  const started = performance.now();
  const kept = await parseBatchOutput(file, ids);
  const ms = performance.now() - started;
  clearInterval(sampler);
  globalThis.gc();
  const retained = process.memoryUsage().heapUsed - before;
  const found = kept.filter((response) => response !== undefined).length;
  if (found !== keep) throw new Error(`kept ${found}, expected ${keep}`);
  return { ms, retainedMiB: retained / 2 ** 20, peakMiB: (peak - before) / 2 ** 20, kept };
}

try {
  console.log(`output file: ${LINES} lines, ${fileMiB.toFixed(0)} MiB`);
  const all = await heapFor(LINES);
  console.log(
    `keep all ${LINES}: ${all.ms.toFixed(0)} ms, heap retained ${all.retainedMiB.toFixed(0)} MiB, peak above baseline ${all.peakMiB.toFixed(0)} MiB`,
  );
  all.kept.length = 0;
  const few = await heapFor(1_000);
  console.log(
    `keep 1,000: ${few.ms.toFixed(0)} ms, heap retained ${few.retainedMiB.toFixed(1)} MiB, peak above baseline ${few.peakMiB.toFixed(0)} MiB`,
  );
  // Bounded by what is kept: the peak stays a small fraction of the file however large it is.
  const ok = report(
    'batch output parse: peak heap keeping 1,000 of 100,000 records',
    few.peakMiB.toFixed(0),
    'MiB',
    `< 64 MiB for a ${fileMiB.toFixed(0)} MiB file`,
    few.peakMiB < 64,
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
