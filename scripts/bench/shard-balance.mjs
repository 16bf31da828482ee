// Issue 14: `--shard i/n` splits the selected cases evenly. For 10,000 cases in 8 shards, the
// largest shard stays within 10% of the mean, and every case lands in exactly one shard.
// Measured through the CLI (`agentv eval --shard i/8 --list`), not the hash function alone.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { AGENTV, evalYaml, report, tempProject } from './support.mjs';

const CASES = 10_000;
const SHARDS = 8;
const BUDGET = 1.1;

const project = tempProject({
  '.agentv/targets.yaml': 'targets:\n  - { name: default, provider: mock }\n',
  'evals/many.yaml': evalYaml(CASES),
});
try {
  const seen = new Map();
  const sizes = [];
  for (let shard = 1; shard <= SHARDS; shard++) {
    const run = spawnSync(
      process.execPath,
      [AGENTV, 'eval', path.join('evals', 'many.yaml'), '--list', '--shard', `${shard}/${SHARDS}`],
      { cwd: project.dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    if (run.status !== 0)
      throw new Error(`--list --shard ${shard}/${SHARDS} failed:\n${run.stderr}`);
    const ids = run.stdout
      .split('\n')
      .filter((line) => line.startsWith('evals/'))
      .map((line) => line.split(/\s+/)[1]);
    for (const id of ids) {
      if (seen.has(id)) throw new Error(`${id} is in shards ${seen.get(id)} and ${shard}`);
      seen.set(id, shard);
    }
    sizes.push(ids.length);
  }
  if (seen.size !== CASES) throw new Error(`${CASES - seen.size} cases are in no shard`);
  const mean = CASES / SHARDS;
  const ratio = Math.max(...sizes) / mean;
  console.log(`shard sizes for ${CASES} cases in ${SHARDS} shards: ${sizes.join(', ')}`);
  report(
    `shard balance, ${CASES} cases in ${SHARDS} shards: largest / mean`,
    ratio.toFixed(3),
    'x',
    `<= ${BUDGET}x`,
    ratio <= BUDGET,
    { sizes },
  );
  process.exitCode = ratio <= BUDGET ? 0 : 1;
} finally {
  project.cleanup();
}
