// Scores 1 when the candidate answer contains the reference answer.
let input = '';
for await (const chunk of process.stdin) input += chunk;
const payload = JSON.parse(input);
const found = payload.candidate_answer.includes(payload.reference_answer);
const result = found
  ? { score: 1, hits: [`mentions ${payload.reference_answer}`], reasoning: 'reference found' }
  : {
      score: 0.25,
      misses: [`does not mention ${payload.reference_answer}`],
      reasoning: 'reference missing',
    };
console.log(JSON.stringify(result));
