// Prints prose instead of a JSON result.
console.log('I think the answer is pretty good, 8/10');
