// Echoes what it received as its reasoning, and its working directory as a hit.
let input = '';
for await (const chunk of process.stdin) input += chunk;
console.log(JSON.stringify({ score: 1, hits: [process.cwd()], reasoning: input }));
