/** A result line as `agentv eval` writes it, with `fields` over the defaults. */
export function resultLine(id: string, fields: Record<string, unknown> = {}): string {
  const passed = fields.passed ?? true;
  return `${JSON.stringify({
    timestamp: '2026-01-01T12:00:00.000Z',
    eval_id: id,
    dataset: 'suite',
    target: 'default',
    score: passed ? 1 : 0,
    passed,
    hits: [],
    misses: [],
    reasoning: '',
    candidate_answer: `answer of ${id}`,
    evaluator_results: [
      {
        name: 'mentions',
        type: 'contains',
        score: passed ? 1 : 0,
        weight: 1,
        verdict: passed ? 'pass' : 'fail',
        hits: [],
        misses: [],
        reasoning: '',
      },
    ],
    attempts: 1,
    duration_ms: 100,
    trace_summary: null,
    eval_file: 'evals/suite.yaml',
    ...fields,
  })}\n`;
}
