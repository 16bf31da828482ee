import { createHash } from 'node:crypto';
import type { PlannedCase, RunPlan } from '@agentv/core';
import { describe, expect, it } from 'vitest';
import { caseKey } from './shard.js';
import { shardPlan } from './shard-plan.js';

const evalFileName = (absolutePath: string) => absolutePath.replace('/project/', '');
const keyOf = (c: PlannedCase) =>
  caseKey(evalFileName(c.evalCase.filePath), c.evalCase.id, c.target.name);

function planOf(cases: readonly [file: string, id: string, target: string][]): RunPlan {
  return {
    cases: cases.map(([file, id, target]) => ({
      evalCase: { id, filePath: `/project/${file}` },
      target: { name: target },
    })),
  } as unknown as RunPlan;
}

/** The run id as its definition says: sha256 of every key, sorted, each followed by a newline. */
function expectedRunId(plan: RunPlan): string {
  const keys = plan.cases.map(keyOf).sort();
  return createHash('sha256')
    .update(keys.map((key) => `${key}\n`).join(''))
    .digest('hex')
    .slice(0, 16);
}

// Characters that sort before, at and after the quote that ends an id in its key, that JSON
// escapes, and ones it does not.
const ALPHABET = [
  'a',
  'b',
  'Z',
  '0',
  '-',
  ' ',
  '!',
  '"',
  '#',
  '\\',
  '\n',
  '\t',
  'é',
  '😀',
  '\ud800',
  '~',
];

function randomId(random: () => number): string {
  const length = Math.floor(random() * 5);
  let id = '';
  for (let index = 0; index < length; index++) {
    id += ALPHABET[Math.floor(random() * ALPHABET.length)];
  }
  return id;
}

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

describe('shardPlan run id', () => {
  it('is sha256 of the sorted keys for one file and target, over a thousand cases', () => {
    const plan = planOf(
      Array.from({ length: 2_345 }, (_, index) => ['evals/a.yaml', `case-${index}`, 'default']),
    );
    expect(shardPlan(plan, undefined, keyOf, evalFileName).run.id).toBe(expectedRunId(plan));
  });

  it('is the same whatever the ids hold, and with several files or targets', () => {
    const random = seeded(7);
    for (let round = 0; round < 300; round++) {
      const several = round % 3 === 0;
      const ids = new Set<string>();
      while (ids.size < 1 + Math.floor(random() * 40)) ids.add(randomId(random));
      const cases = [...ids].map(
        (id, index) =>
          [
            several && index % 2 === 1 ? 'evals/b "x".yaml' : 'evals/a.yaml',
            id,
            several && index % 3 === 1 ? 'other' : 'default',
          ] as [string, string, string],
      );
      const plan = planOf(cases);
      expect(shardPlan(plan, undefined, keyOf, evalFileName).run.id).toBe(expectedRunId(plan));
    }
  });

  it('names the whole run in every shard, and another selection differently', () => {
    const plan = planOf(
      Array.from({ length: 50 }, (_, index) => ['evals/a.yaml', `c${index}`, 'default']),
    );
    const whole = shardPlan(plan, undefined, keyOf, evalFileName).run.id;
    expect(shardPlan(plan, { index: 2, count: 3 }, keyOf, evalFileName).run.id).toBe(whole);
    const fewer = planOf(
      plan.cases.slice(1).map((c) => ['evals/a.yaml', c.evalCase.id, 'default']),
    );
    expect(shardPlan(fewer, undefined, keyOf, evalFileName).run.id).not.toBe(whole);
  });
});
