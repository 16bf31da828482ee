// Shared helpers for the benchmarks: temp projects, timing and the built CLI.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const AGENTV = fileURLToPath(new URL('../../apps/agentv/bin/agentv.mjs', import.meta.url));

/** Creates a temp project (its own repository root) with `files`; returns its path and a cleanup. */
export function tempProject(files) {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentv-bench-'));
  mkdirSync(path.join(dir, '.git'));
  for (const [relative, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
    writeFileSync(path.join(dir, relative), content);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs a command synchronously and returns wall time in ms, failing loudly on a bad exit. */
export function timed(command, args, options = {}) {
  const started = performance.now();
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 30, ...options });
  const ms = performance.now() - started;
  if (result.status !== 0 && !(options.okCodes ?? [0]).includes(result.status)) {
    throw new Error(`${command} ${args.join(' ')} exited ${result.status}\n${result.stderr}`);
  }
  return { ms, result };
}

/** Median of the wall times of `runs` calls of `fn`. */
export function median(runs, fn) {
  const times = Array.from({ length: runs }, () => fn()).sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** An eval file with `count` cases answered by the file's target, graded by `contains`. */
export function evalYaml(count) {
  const lines = [
    'execution:',
    '  evaluators:',
    '    - { name: answered, type: contains, value: "answer" }',
    'evalcases:',
  ];
  for (let index = 0; index < count; index++) {
    lines.push(
      `  - id: case-${index}`,
      `    input_messages: [{ role: user, content: "question ${index}" }]`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Prints one figure and whether it is within its budget; returns true when it is. */
export function report(name, value, unit, budget, ok) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${value} ${unit} (budget: ${budget})`);
  return ok;
}
