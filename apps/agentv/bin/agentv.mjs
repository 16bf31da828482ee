#!/usr/bin/env node
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  // The hottest call in scripts and CI checks: answer it without loading the CLI.
  const { readVersion } = await import('../dist/version.js');
  process.stdout.write(`${readVersion()}\n`);
} else {
  // Keep V8's young generation at its starting size instead of letting it grow to 3 x 16 MiB:
  // a run's objects are short-lived or kept for the whole run, so a larger nursery mostly adds
  // resident memory (and makes every agent spawn, a fork of this process, copy more page tables).
  // Takes effect although V8 is already running; set before anything is allocated in bulk.
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--semi-space-growth-factor=1');
  const { loadCliBundle } = await import('../dist/load-cli-bundle.js');
  process.exitCode = await loadCliBundle().runCli(argv);
}
