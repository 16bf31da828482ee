// The default target's agent, looked for in each eval file's folder (its cwd).
console.log('refund');
