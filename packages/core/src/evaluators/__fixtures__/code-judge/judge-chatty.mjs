// Logs progress lines before its result, as real scripts often do.
for await (const _chunk of process.stdin) {
  // drain stdin
}
console.log('loading rubric...');
console.log('{"not": "the result"');
console.log(
  JSON.stringify({ score: 0.7, hits: ['partial'], misses: ['incomplete'], reasoning: null }),
);
console.log('');
