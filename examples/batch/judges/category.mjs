#!/usr/bin/env node
// code_judge: the answer must be exactly the category in the case's reference answer.
let input = '';
for await (const chunk of process.stdin) input += chunk;
const {
  candidate_answer: answer,
  reference_answer: expected,
  candidate_trace_summary: summary,
} = JSON.parse(input);

const correct = answer.trim().toLowerCase() === String(expected).trim().toLowerCase();
const tools = summary ? Object.keys(summary.toolCallsByName).join(', ') || 'none' : 'no trace';
process.stdout.write(
  JSON.stringify({
    score: correct ? 1 : 0,
    hits: correct ? [`classified as ${expected}`] : [],
    misses: correct ? [] : [`expected ${expected}, got ${answer}`],
    reasoning: `tools used: ${tools}`,
  }),
);
