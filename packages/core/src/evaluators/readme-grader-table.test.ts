import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { createEvaluatorRegistry, defaultEvaluators } from './evaluator-registry.js';

it("the README's grader table lists every built-in grader with each of its options", async () => {
  const readme = await readFile(
    path.join(import.meta.dirname, '..', '..', '..', '..', 'README.md'),
    'utf8',
  );
  const lines = readme.split('\n');
  const start = lines.findIndex((line) => line.startsWith('| Grader '));
  expect(start).toBeGreaterThan(0);
  const rows: [string, string][] = [];
  for (let index = start + 2; lines[index]?.startsWith('|'); index++) {
    const [grader = '', options = ''] = lines[index]!.split(' | ');
    rows.push([grader, options]);
  }
  const registry = createEvaluatorRegistry(defaultEvaluators());
  const missing: string[] = [];
  for (const type of registry.types()) {
    const negated = type.startsWith('not_') && registry.has(type.slice(4));
    const row = rows.find(([grader]) => grader.includes(negated ? '`not_<type>`' : `\`${type}\``));
    if (row === undefined) {
      missing.push(type);
      continue;
    }
    if (negated) continue;
    for (const option of registry.get(type).options ?? []) {
      if (!row[1].includes(`\`${option}\``)) missing.push(`${type}.${option}`);
    }
  }
  expect(missing).toEqual([]);
});
