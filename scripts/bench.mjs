#!/usr/bin/env node
// Runs every benchmark in scripts/bench/ against the built packages (run `pnpm build` first).
// Each prints its figures and exits non-zero when it misses its budget (SPEC section 8).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('./bench/', import.meta.url));
const only = process.argv.slice(2);
let failed = 0;
for (const file of readdirSync(dir)
  .filter((name) => name.endsWith('.mjs') && name !== 'support.mjs')
  .sort()) {
  if (only.length > 0 && !only.some((name) => file.includes(name))) continue;
  console.log(`\n== ${file}`);
  const { status } = spawnSync(process.execPath, ['--expose-gc', `${dir}${file}`], {
    stdio: 'inherit',
  });
  if (status !== 0) failed++;
}
console.log(
  failed === 0 ? '\nall benchmarks within budget' : `\n${failed} benchmark(s) missed their budget`,
);
process.exitCode = failed === 0 ? 0 : 1;
