// Prints its result as pretty, multi-line JSON.
for await (const _chunk of process.stdin) {
  // drain stdin
}
console.log(JSON.stringify({ score: 0.9, reasoning: 'pretty' }, null, 2));
