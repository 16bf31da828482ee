// A composite aggregator: the lowest member score wins.
let input = '';
for await (const chunk of process.stdin) input += chunk;
const { results } = JSON.parse(input);
const entries = Object.entries(results);
const [name, lowest] = entries.reduce((low, entry) =>
  entry[1].score < low[1].score ? entry : low,
);
console.log(
  JSON.stringify({
    score: lowest.score,
    hits: [`members: ${entries.map(([member]) => member).join(', ')}`],
    reasoning: `lowest is ${name}`,
  }),
);
