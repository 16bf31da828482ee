// Fails the way a broken judge does: a message on stderr and a non-zero exit.
console.error('loading model...');
console.error('Error: database unreachable');
process.exit(3);
