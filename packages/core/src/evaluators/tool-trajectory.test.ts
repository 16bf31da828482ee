import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../trace/trace-event.js';
import { makeConfig, makeContext, toolCall } from './test-support/make-context.js';
import { toolTrajectoryEvaluator } from './tool-trajectory.js';

const trace: TraceEvent[] = [
  { type: 'model_step', timestamp: '2025-01-01T00:00:00.000Z', name: 'gpt' },
  toolCall('search', { query: 'refund policy', limit: 5 }),
  { type: 'tool_result', timestamp: '2025-01-01T00:00:01.000Z', name: 'search', output: 'ok' },
  toolCall('lookupOrder', { id: 42 }),
  toolCall('search', { query: 'shipping' }),
  toolCall('refund', { id: 42, amount: 20 }),
];
const context = makeContext({ trace });

function grade(options: Record<string, unknown>, ctx = context) {
  return toolTrajectoryEvaluator.evaluate(makeConfig('tool_trajectory', options), ctx);
}

describe('tool_trajectory', () => {
  it('scores 0 with a clear miss when there is no trace', async () => {
    const result = await grade({ mode: 'any_order', minimums: { search: 1 } }, makeContext());
    expect(result).toEqual({ score: 0, hits: [], misses: ['No trace available for evaluation'] });
  });

  describe('any_order', () => {
    it('scores the fraction of minimums met', async () => {
      const result = await grade({
        mode: 'any_order',
        minimums: { search: 2, refund: 1, escalate: 1 },
      });
      expect(result.score).toBeCloseTo(2 / 3);
      expect(result.hits).toEqual([
        '"search" called 2 times (minimum 2)',
        '"refund" called 1 time (minimum 1)',
      ]);
      expect(result.misses).toEqual(['"escalate" called 0 times, expected at least 1']);
    });

    it('counts only tool_call events', async () => {
      const result = await grade({ mode: 'any_order', minimums: { search: 3 } });
      expect(result.score).toBe(0);
    });
  });

  describe('in_order', () => {
    it('passes when the expected calls occur in order with others in between', async () => {
      const result = await grade({
        mode: 'in_order',
        expected: [{ tool: 'search', input: { query: 'refund policy' } }, { tool: 'refund' }],
      });
      expect(result.score).toBe(1);
      expect(result.hits).toEqual([
        'Expected call 1 "search" {"query":"refund policy"} matched call 1',
        'Expected call 2 "refund" matched call 4',
      ]);
      expect(result.misses).toEqual([]);
    });

    it('scans forward as AgentV does: a missing step leaves no calls for the steps after it', async () => {
      const result = await grade({
        mode: 'in_order',
        expected: [{ tool: 'refund' }, { tool: 'lookupOrder' }, { tool: 'search' }],
      });
      // refund matches call 4; nothing comes after it, so lookupOrder and search miss.
      expect(result.score).toBeCloseTo(1 / 3);
      expect(result.hits).toEqual(['Expected call 1 "refund" matched call 4']);
      expect(result.misses).toEqual([
        'Expected call 2 "lookupOrder" not found after the previous match',
        'Expected call 3 "search" not found after the previous match',
        'Actual tool calls: search -> lookupOrder -> search -> refund',
      ]);
    });

    it('scores a step missing from the middle the way AgentV does (its own test case)', async () => {
      const result = await grade(
        {
          mode: 'in_order',
          expected: [{ tool: 'search' }, { tool: 'analyze' }, { tool: 'report' }],
        },
        makeContext({ trace: [toolCall('search', {}), toolCall('report', {})] }),
      );
      expect(result.score).toBeCloseTo(1 / 3);
    });

    it('uses up the next call of the tool when its input does not match', async () => {
      const result = await grade({
        mode: 'in_order',
        expected: [{ tool: 'lookupOrder', input: { id: 7 } }, { tool: 'escalate' }],
      });
      expect(result.score).toBe(0);
      expect(result.misses).toEqual([
        'Expected call 1 "lookupOrder" {"id":7}: call 2 "lookupOrder" {"id":42}: input.id is 42, expected 7',
        'Expected call 2 "escalate" not found after the previous match',
        'Actual tool calls: search -> lookupOrder -> search -> refund',
      ]);
    });
  });

  describe('exact', () => {
    const expected = [
      { tool: 'search' },
      { tool: 'lookupOrder', input: { id: 42 } },
      { tool: 'search', input: { query: 'shipping' } },
      { tool: 'refund', input: { amount: 20 } },
    ];

    it('scores 1 when the calls are exactly the expected ones', async () => {
      const result = await grade({ mode: 'exact', expected });
      expect(result.score).toBe(1);
      expect(result.misses).toEqual([]);
    });

    it('scores the fraction of matching positions', async () => {
      const wrong = [...expected.slice(0, 3), { tool: 'refund', input: { amount: 99 } }];
      const result = await grade({ mode: 'exact', expected: wrong });
      expect(result.score).toBe(0.75);
      expect(result.misses).toEqual([
        'Call 4 "refund" {"id":42,"amount":20}: input.amount is 20, expected 99',
      ]);
    });

    it('fails with extra calls', async () => {
      const result = await grade({ mode: 'exact', expected: expected.slice(0, 3) });
      expect(result.score).toBe(0);
      expect(result.misses).toEqual([
        'Expected exactly 3 tool call(s), got 4: search -> lookupOrder -> search -> refund',
      ]);
    });

    it('fails with missing calls', async () => {
      const result = await grade({ mode: 'exact', expected: [...expected, { tool: 'notify' }] });
      expect(result.score).toBe(0);
      expect(result.misses.at(-1)).toMatch(/^Expected exactly 5 tool call\(s\), got 4/);
    });
  });

  describe('validate', () => {
    const validate = (options: Record<string, unknown>) =>
      toolTrajectoryEvaluator
        .validate?.(makeConfig('tool_trajectory', options))
        .map((issue) => issue.message);

    it('accepts well-formed configs', () => {
      expect(validate({ mode: 'any_order', minimums: { search: 1 } })).toEqual([]);
      expect(validate({ mode: 'exact', expected: [{ tool: 'a', input: { x: 1 } }] })).toEqual([]);
    });

    it('names a missing or unknown mode', () => {
      expect(validate({})).toEqual([
        '"mode" must be one of any_order, in_order, exact, got nothing (or give a limit: forbidden, min_calls, max_calls, max_steps, max_tool_errors)',
      ]);
      expect(validate({ mode: 'sorted' })).toEqual([
        '"mode" must be one of any_order, in_order, exact, got "sorted"',
      ]);
    });

    it('names what each mode needs', () => {
      expect(validate({ mode: 'any_order' })).toEqual([
        expect.stringContaining('mode any_order needs "minimums"'),
      ]);
      expect(validate({ mode: 'any_order', minimums: { search: -1 } })).toEqual([
        '"minimums.search" must be a whole number >= 0, got -1',
      ]);
      expect(validate({ mode: 'in_order' })).toEqual([
        expect.stringContaining('mode in_order needs "expected"'),
      ]);
      expect(validate({ mode: 'exact', expected: [{ name: 'search' }] })).toEqual([
        expect.stringContaining(
          '"expected[0]" must be {tool, input?, input_pattern?} with a tool name',
        ),
      ]);
      expect(
        validate({ mode: 'exact', expected: [{ tool: 'search', argsMatch: 'exact' }] }),
      ).toEqual([
        '"expected[0]" has unknown key "argsMatch"; only "tool", "input", "args", "input_pattern" are read',
      ]);
      expect(
        validate({ mode: 'exact', expected: [{ tool: 'a', input_pattern: { q: '(' } }] }),
      ).toEqual([
        expect.stringContaining('"expected[0].input_pattern.q" is not a valid regular expression'),
      ]);
      expect(validate({ max_steps: -1, min_calls: { a: 'x' }, forbidden: [] })).toEqual([
        expect.stringContaining('"forbidden" must be a non-empty list'),
        '"min_calls.a" must be a whole number >= 0, got "x"',
        '"max_steps" must be a whole number >= 0, got -1',
      ]);
      expect(validate({ expected: [{ tool: 'a' }], max_steps: 3 })).toEqual([
        expect.stringContaining('"mode" is missing'),
      ]);
    });
  });

  describe('canonical and raw names', () => {
    // Two agents' traces of the same work: the canonical name `shell`, each agent's own name kept.
    const codex: TraceEvent[] = [
      { ...toolCall('shell', { command: 'npm test' }), rawName: 'command_execution' },
      { ...toolCall('edit_file', { path: 'a.js' }), rawName: 'file_change' },
    ];
    const claude: TraceEvent[] = [
      { ...toolCall('shell', { command: 'npm test' }), rawName: 'Bash' },
      { ...toolCall('edit_file', { path: 'a.js' }), rawName: 'Edit' },
    ];

    it('matches one canonical check against every agent', async () => {
      const options = { mode: 'in_order', expected: [{ tool: 'shell' }, { tool: 'edit_file' }] };
      for (const trace of [codex, claude]) {
        expect((await grade(options, makeContext({ trace }))).score).toBe(1);
      }
    });

    it("matches an agent's own name too", async () => {
      const minimums = { mode: 'any_order', minimums: { Bash: 1, Edit: 1 } };
      expect((await grade(minimums, makeContext({ trace: claude }))).score).toBe(1);
      expect((await grade(minimums, makeContext({ trace: codex }))).score).toBe(0);
      const exact = {
        mode: 'exact',
        expected: [{ tool: 'command_execution' }, { tool: 'edit_file' }],
      };
      expect((await grade(exact, makeContext({ trace: codex }))).score).toBe(1);
    });

    it('shows both names in the actual sequence', async () => {
      const result = await grade(
        { mode: 'in_order', expected: [{ tool: 'search' }] },
        makeContext({ trace: claude }),
      );
      expect(result.misses).toContain('Actual tool calls: shell (Bash) -> edit_file (Edit)');
    });
  });

  describe('patterns and limits', () => {
    const agent: TraceEvent[] = [
      { type: 'model_step', timestamp: '2025-01-01T00:00:00.000Z', name: 'gpt' },
      { ...toolCall('shell', { command: 'ls -la', cwd: '/repo' }), rawName: 'Bash' },
      {
        type: 'tool_result',
        timestamp: '2025-01-01T00:00:00.000Z',
        name: 'shell',
        metadata: { exit_code: 2 },
      },
      { type: 'model_step', timestamp: '2025-01-01T00:00:00.000Z', name: 'gpt' },
      { ...toolCall('shell', { command: 'rm -rf build' }), rawName: 'Bash' },
      toolCall('edit_file', { path: 'src/a.ts', edits: [{ line: 3 }] }),
    ];
    const ctx = makeContext({ trace: agent });

    it('matches input_pattern per field and names the field that differs', async () => {
      const ok = await grade(
        { mode: 'in_order', expected: [{ tool: 'shell', input_pattern: { command: '^ls' } }] },
        ctx,
      );
      expect(ok.score).toBe(1);
      const miss = await grade(
        {
          mode: 'exact',
          expected: [
            { tool: 'Bash', input_pattern: { command: '^git' } },
            { tool: 'shell' },
            { tool: 'edit_file', input: { edits: [{ line: 4 }] } },
          ],
        },
        ctx,
      );
      expect(miss.misses).toEqual([
        'Call 1 "shell" {"command":"ls -la","cwd":"/repo"}: input.command "ls -la" does not match /^git/',
        'Call 3 "edit_file" {"path":"src/a.ts","edits":[{"line":3}]}: input.edits[0].line is 3, expected 4',
      ]);
      expect(miss.score).toBeCloseTo(1 / 3);
    });

    it('accepts upstream AgentV\'s "args" for input, "any" checking nothing', async () => {
      const options = {
        mode: 'exact',
        expected: [
          { tool: 'shell', args: { cwd: '/repo' } },
          { tool: 'shell', args: 'any' },
          { tool: 'edit_file' },
        ],
      };
      expect((await grade(options, ctx)).score).toBe(1);
    });

    it('fails on a forbidden call, naming the call and the field', async () => {
      const result = await grade(
        {
          forbidden: [
            { tool: 'shell', input_pattern: { command: 'rm -rf' } },
            { tool: 'web_fetch' },
          ],
        },
        ctx,
      );
      expect(result.score).toBe(0);
      expect(result.misses).toEqual([
        'Forbidden call: call 2 "shell" (Bash) matches forbidden[0] (input.command "rm -rf build" matches /rm -rf/)',
      ]);
      expect(result.hits).toEqual(['No call matches forbidden[1] "web_fetch"']);
    });

    it('checks min_calls and max_calls per tool under either name', async () => {
      const result = await grade(
        { min_calls: { Bash: 1, read_file: 1 }, max_calls: { shell: 1 } },
        ctx,
      );
      expect(result.score).toBe(0);
      expect(result.hits).toEqual(['"Bash" called 2 times (min_calls 1)']);
      expect(result.misses).toEqual([
        '"read_file" called 0 times, min_calls is 1',
        '"shell" called 2 times, max_calls is 1',
      ]);
      expect(
        (await grade({ max_calls: { shell: 2 }, min_calls: { edit_file: 1 } }, ctx)).score,
      ).toBe(1);
    });

    it('counts steps as tool calls plus model turns, and failed tool calls', async () => {
      const over = await grade({ max_steps: 4, max_tool_errors: 0 }, ctx);
      expect(over.score).toBe(0);
      expect(over.misses).toEqual([
        '5 step(s) (3 tool call(s) + 2 model turn(s)) exceed max_steps 4',
        '1 failed tool call(s) exceed max_tool_errors 0',
      ]);
      const within = await grade({ max_steps: 5, max_tool_errors: 1 }, ctx);
      expect(within.score).toBe(1);
    });

    it('gates the mode score on the limits', async () => {
      const options = { mode: 'any_order', minimums: { shell: 1 }, max_calls: { edit_file: 0 } };
      const result = await grade(options, ctx);
      expect(result.score).toBe(0);
      expect(result.hits).toEqual(['"shell" called 2 times (minimum 1)']);
      expect(result.misses).toEqual(['"edit_file" called 1 time, max_calls is 0']);
    });
  });
});
