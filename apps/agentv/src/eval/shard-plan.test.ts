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

// Characters an id may hold and still sort as its key (including ones JSON leaves as they are:
// U+2028, DEL, non-ASCII), and ones that make the keys sort otherwise or that JSON escapes.
const SORTS_AS_KEY = ['a', 'b', 'Z', '0', '-', '#', '~', 'é', '\u2028', '\u007f'];
const SORTS_OTHERWISE = [' ', '!', '"', '\\', '\n', '\t', '😀', '\ud800'];

function randomId(random: () => number, alphabet: readonly string[]): string {
  const length = Math.floor(random() * 5);
  let id = '';
  for (let index = 0; index < length; index++) {
    id += alphabet[Math.floor(random() * alphabet.length)];
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
    for (let round = 0; round < 400; round++) {
      // Most rounds can take the sorted-ids path: one file and target, ids that sort as their
      // keys, ids that are prefixes of others (`a`, `a#`). The rest cannot.
      const several = round % 8 === 0;
      const alphabet =
        round % 4 === 1
          ? [...SORTS_AS_KEY, ...SORTS_OTHERWISE]
          : round % 4 === 3
            ? [...SORTS_AS_KEY, ' ', '!']
            : SORTS_AS_KEY;
      const ids = new Set<string>();
      while (ids.size < 1 + Math.floor(random() * 40)) {
        const id = randomId(random, alphabet);
        ids.add(id);
        if (random() < 0.3) ids.add(`${id}${randomId(random, alphabet)}`);
      }
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

  it('sorts the ids, making one key, only where that gives the same id', () => {
    const keysMade = (ids: readonly string[], targets = ['default']) => {
      let made = 0;
      const counting = (c: PlannedCase) => {
        made++;
        return keyOf(c);
      };
      const plan = planOf(
        ids.flatMap((id) =>
          targets.map((target) => ['evals/a.yaml', id, target] as [string, string, string]),
        ),
      );
      expect(shardPlan(plan, undefined, counting, evalFileName).run.id).toBe(expectedRunId(plan));
      return made;
    };
    expect(keysMade(['b', 'a', 'a#', 'é', '\u2028'])).toBe(1);
    // A lone surrogate is escaped in a key, a space sorts before its quote, two targets make
    // keys that differ elsewhere: one key per case.
    expect(keysMade(['b', 'a\ud800'])).toBe(2);
    expect(keysMade(['b', 'a b', 'a'])).toBe(3);
    expect(keysMade(['b', 'a'], ['default', 'other'])).toBe(4);
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
