#!/usr/bin/env node
// code_judge: the answer must name the capital in the case's `capital` column (its vars).
let input = '';
for await (const chunk of process.stdin) input += chunk;
const { candidate_answer: answer, vars } = JSON.parse(input);
const capital = vars?.capital ?? '';
const named = capital !== '' && answer.includes(capital);
process.stdout.write(
  JSON.stringify({
    score: named ? 1 : 0,
    hits: named ? [`names ${capital}`] : [],
    misses: named ? [] : [`expected ${capital || '(no capital column)'}, got ${answer}`],
  }),
);
