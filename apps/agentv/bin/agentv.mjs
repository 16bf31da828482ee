#!/usr/bin/env node
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  // The hottest call in scripts and CI checks: answer it without loading the CLI.
  const { readVersion } = await import('../dist/version.js');
  process.stdout.write(`${readVersion()}\n`);
} else {
  const { runCli } = await import('../dist/main.js');
  process.exitCode = await runCli(argv);
}
