#!/usr/bin/env node
// A code_judge: AgentV writes one JSON object to stdin and reads
// {score, hits, misses, reasoning} from stdout. This one checks that the agent
// called every tool listed in the case's expected_messages, using the trace summary.
let input = '';
for await (const chunk of process.stdin) input += chunk;
const payload = JSON.parse(input);

const expected = (payload.expected_messages ?? [])
  .flatMap((message) => message.tool_calls ?? [])
  .map((call) => call.tool);
const called = payload.candidate_trace_summary?.toolCallsByName ?? {};

const hits = expected.filter((tool) => called[tool] > 0).map((tool) => `called ${tool}`);
const misses = expected.filter((tool) => !(called[tool] > 0)).map((tool) => `did not call ${tool}`);
const score = expected.length === 0 ? 1 : hits.length / expected.length;

process.stdout.write(
  JSON.stringify({
    score,
    hits,
    misses,
    reasoning: `${hits.length} of ${expected.length} expected tool(s) called`,
  }),
);
