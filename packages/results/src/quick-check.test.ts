import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileQuickCheck } from './quick-check.js';
import { createResultLineRenderer } from './result-line.js';
import { resultLineSchema } from './result-line-schema.js';
import { makeResult, makeRubricMember } from './test-support/make-result.js';

const member = makeRubricMember();
const line = JSON.parse(
  createResultLineRenderer({
    includeTrace: true,
    evalFileName: () => 'evals/suite.yaml',
    run: { id: 'abc', cases: 3, shard: '1/2' },
  })(
    makeResult({
      usage: { inputTokens: 10 },
      cached: true,
      evaluatorResults: [{ ...member, type: 'composite', members: [member] }],
      repeats: {
        rule: 'all',
        reducer: 'mean',
        planned: 1,
        flaky: false,
        passRate: 1,
        passAtK: 1,
        passHatK: 1,
        runs: [{ repeat: 1, score: 1, passed: true, attempts: 1, durationMs: 3 }],
      },
      trace: [{ type: 'tool_call', timestamp: '2025-01-01T12:00:00Z', name: 'x' }],
      outputMessages: [{ role: 'assistant', toolCalls: [{ tool: 'x' }] }],
    }),
  ),
);

/** Every value in `value` with its path, objects and arrays included. */
function* paths(value: unknown, path: (string | number)[] = []): Generator<(string | number)[]> {
  if (typeof value !== 'object' || value === null) return;
  for (const [key, child] of Object.entries(value)) {
    const at = [...path, Array.isArray(value) ? Number(key) : key];
    yield at;
    yield* paths(child, at);
  }
}

function replaced(value: unknown, path: (string | number)[], by: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  if (by === undefined) delete parent[path.at(-1)!];
  else parent[path.at(-1)!] = by;
  return copy;
}

describe('compileQuickCheck', () => {
  const quick = compileQuickCheck(resultLineSchema);

  it('accepts a line the writer wrote, and never a line zod refuses', () => {
    expect(quick(line)).toBe(true);
    const bad = [undefined, null, 'text', '', 1.5, -1, 0, true, false, [], {}, ['x'], { x: 1 }];
    let refused = 0;
    for (const path of paths(line)) {
      for (const by of bad) {
        const changed = replaced(line, path, by);
        const zodAccepts = resultLineSchema.safeParse(changed).success;
        if (quick(changed))
          expect(zodAccepts, `${path.join('.')} = ${JSON.stringify(by)}`).toBe(true);
        if (!zodAccepts) refused++;
      }
    }
    expect(refused).toBeGreaterThan(500);
    expect(quick({ ...line, newer_field: { anything: [1] } })).toBe(true);
  });

  it('refuses to compile what it cannot check exactly', () => {
    expect(() => compileQuickCheck(z.object({ at: z.date() }))).toThrow(/does not support a date/);
    expect(() => compileQuickCheck(z.string().min(1))).toThrow(/string with checks/);
    expect(() => compileQuickCheck(z.number().gt(0))).toThrow(/exclusive bound/);
  });
});
