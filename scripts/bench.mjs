#!/usr/bin/env node
// Runs every benchmark in scripts/bench/ against the built packages (run `pnpm build` first).
// Each prints its figures and exits non-zero when it misses its budget (stated at the top of its file). All
// figures, with their budgets and the machine's load, are written to a JSON file:
// `.agentv/bench/results.json`, or the path given by `--json <path>`.
//   node scripts/bench.mjs [--json path] [name ...]   (names filter the files, e.g. `per-case`)
// BENCH_ROUNDS (default 3) sets how many interleaved rounds each median is taken over.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('./bench/', import.meta.url));
const args = process.argv.slice(2);
const jsonIndex = args.indexOf('--json');
const jsonPath = path.resolve(
  jsonIndex === -1 ? '.agentv/bench/results.json' : args[jsonIndex + 1],
);
const only = args.filter(
  (_, index) => jsonIndex === -1 || (index !== jsonIndex && index !== jsonIndex + 1),
);
const scratch = mkdtempSync(path.join(tmpdir(), 'agentv-bench-figures-'));
const benchmarks = [];
let failed = 0;
try {
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith('.mjs') && name !== 'support.mjs')
    .sort()) {
    if (only.length > 0 && !only.some((name) => file.includes(name))) continue;
    console.log(`\n== ${file}`);
    const figuresFile = path.join(scratch, `${file}.jsonl`);
    writeFileSync(figuresFile, '');
    const loadBefore = loadavg()[0];
    const started = performance.now();
    const { status } = spawnSync(process.execPath, ['--expose-gc', `${dir}${file}`], {
      stdio: 'inherit',
      env: { ...process.env, AGENTV_BENCH_FIGURES: figuresFile },
    });
    const figures = readFileSync(figuresFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const ok = status === 0 && figures.every((figure) => figure.ok);
    if (!ok) failed++;
    benchmarks.push({
      file,
      ok,
      exitCode: status,
      seconds: Math.round(performance.now() - started) / 1000,
      loadAverage1m: { before: loadBefore, after: loadavg()[0] },
      figures,
    });
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
mkdirSync(path.dirname(jsonPath), { recursive: true });
writeFileSync(
  jsonPath,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      rounds: Number(process.env.BENCH_ROUNDS ?? 3),
      ok: failed === 0,
      benchmarks,
    },
    null,
    2,
  )}\n`,
);
console.log(
  failed === 0 ? '\nall benchmarks within budget' : `\n${failed} benchmark(s) missed their budget`,
);
console.log(`figures: ${jsonPath}`);
process.exitCode = failed === 0 ? 0 : 1;
