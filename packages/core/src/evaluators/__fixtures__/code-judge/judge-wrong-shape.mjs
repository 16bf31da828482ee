// Prints JSON, but not the result shape: no numeric score.
console.log(JSON.stringify({ grade: 'A', score: 'high' }));
