#!/usr/bin/env node
// A stand-in for a command-line agent, spawned for real by the provider tests.
// Usage: node fake-agent.mjs MODE [ARGS...]
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const [mode, ...args] = process.argv.slice(2);

const modes = {
  /** Prints its arguments, cwd and AGENTV_TEST_* variables as JSON. */
  echo() {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => key.startsWith('AGENTV_TEST_')),
    );
    process.stdout.write(JSON.stringify({ argv: args, cwd: process.cwd(), env }));
  },
  /** Prints the content of each file argument as JSON. */
  files() {
    const contents = Object.fromEntries(args.map((path) => [path, readFileSync(path, 'utf8')]));
    process.stdout.write(JSON.stringify({ paths: args, contents }));
  },
  /** write OUTPUT_FILE CONTENT: writes CONTENT to OUTPUT_FILE and reports its path on stdout. */
  write() {
    writeFileSync(args[0], args[1]);
    process.stdout.write(`wrote ${args[0]}`);
  },
  /** Reads stdin to its end and reports how many bytes came and how long it took. */
  stdin() {
    const started = Date.now();
    let bytes = 0;
    process.stdin.on('data', (chunk) => {
      bytes += chunk.length;
    });
    process.stdin.on('end', () => {
      process.stdout.write(JSON.stringify({ bytes, ms: Date.now() - started }));
    });
  },
  /** fail CODE MESSAGE [REPEAT]: writes MESSAGE to stderr REPEAT times, then exits with CODE. */
  fail() {
    const [code, message, repeat = '1'] = args;
    for (let index = 0; index < Number(repeat); index++) process.stderr.write(`${message}\n`);
    process.exit(Number(code));
  },
  /**
   * stubborn PID_FILE [ARGS...]: ignores SIGTERM, starts a grandchild that ignores
   * it too, writes both pids and its arguments to PID_FILE, then waits forever.
   */
  stubborn() {
    process.on('SIGTERM', () => {});
    const grandchild = spawn(
      process.execPath,
      ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);"],
      { stdio: 'inherit' },
    );
    const pids = { agent: process.pid, grandchild: grandchild.pid, argv: args.slice(1) };
    writeFileSync(args[0], JSON.stringify(pids));
    process.stderr.write('working...\n');
    setInterval(() => {}, 1000);
  },
  /** leave-child PID_FILE: starts a long sleeper in the background and exits 0 at once. */
  'leave-child'() {
    const sleeper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000);'], {
      stdio: 'ignore',
    });
    sleeper.unref();
    writeFileSync(args[0], JSON.stringify({ agent: process.pid, grandchild: sleeper.pid }));
    process.stdout.write('done');
  },
};

const run = modes[mode];
if (!run) {
  process.stderr.write(`fake-agent: unknown mode ${mode}\n`);
  process.exit(64);
}
run();
