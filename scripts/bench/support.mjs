// Shared helpers for the benchmarks: temp projects, timing and the built CLI.
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const AGENTV = fileURLToPath(new URL('../../apps/agentv/bin/agentv.cjs', import.meta.url));

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
  return middle(Array.from({ length: runs }, () => fn()));
}

/** The median of a list of numbers. */
export function middle(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Rounds of every interleaved measurement: `BENCH_ROUNDS` (default 3, always odd). */
export const ROUNDS = (() => {
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3) || 3);
  return rounds % 2 === 0 ? rounds + 1 : rounds;
})();

/**
 * Runs every measurement of `steps` (name -> async or sync fn returning an object of numbers)
 * once per round, interleaved (a, b, c, a, b, c, ...), so load from other processes hits them
 * alike; returns, per step, the median of each number over the rounds.
 */
export async function interleaved(steps, rounds = ROUNDS) {
  const samples = Object.fromEntries(Object.keys(steps).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, step] of Object.entries(steps)) samples[name].push(await step(round));
  }
  const medians = {};
  for (const [name, list] of Object.entries(samples)) {
    medians[name] = {};
    for (const key of Object.keys(list[0])) {
      medians[name][key] = middle(list.map((sample) => sample[key]));
    }
  }
  return medians;
}

/** Runs the built CLI under `/usr/bin/time`; returns wall ms and peak RSS in MiB. */
export function timedAgentv(args, options = {}) {
  const { ms, result } = timed('/usr/bin/time', ['-f', '%M', process.execPath, AGENTV, ...args], {
    env: { ...process.env, CI: '1' },
    ...options,
  });
  const peakMiB = Number(result.stderr.trim().split('\n').at(-1)) / 1024;
  return { ms, peakMiB, result };
}

/**
 * Checks a result file (`--out x.jsonl`) of a run: exactly the cases `case-0` .. `case-<count-1>`,
 * each once, passed, with the answer `answerFor(id)`. Throws naming the first wrong record, so a
 * run that exits 0 but answered wrongly (or skipped cases) never counts as a measurement.
 */
export function verifyResults(file, count, answerFor) {
  const seen = new Uint8Array(count);
  let records = 0;
  const text = readFileSync(file, 'utf8');
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.trim() === '') continue;
    const record = JSON.parse(line);
    const index = Number(/^case-(\d+)$/.exec(record.eval_id)?.[1] ?? Number.NaN);
    if (!(index >= 0 && index < count))
      throw new Error(`${file}: unexpected case ${record.eval_id}`);
    if (seen[index]) throw new Error(`${file}: case ${record.eval_id} appears twice`);
    seen[index] = 1;
    records++;
    const expected = answerFor(record.eval_id);
    if (record.candidate_answer?.trim() !== expected || record.passed !== true) {
      throw new Error(
        `${file}: case ${record.eval_id} answered ${JSON.stringify(record.candidate_answer)} (passed: ${record.passed}), expected ${JSON.stringify(expected)}`,
      );
    }
  }
  if (records !== count) throw new Error(`${file}: ${records} results, expected ${count}`);
}

/** An eval file with `count` cases answered by the file's target, graded by `contains`. */
/**
 * Runs `agentv eval evals/<file>.yaml` in a bench project with `workers`, checks every case's
 * answer is `answer <id>`, and returns its time and peak memory.
 */
export function evalAndVerify(dir, file, count, workers) {
  const { ms, peakMiB } = timedAgentv(
    ['eval', `evals/${file}.yaml`, '--workers', String(workers), '--out', `${file}.jsonl`],
    { cwd: dir },
  );
  verifyResults(path.join(dir, `${file}.jsonl`), count, (id) => `answer ${id}`);
  return { ms, peakMiB };
}

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

/** The same cases as `evalYaml`, as JSONL dataset records (one case per line). */
export function casesJsonl(count) {
  const lines = [];
  for (let index = 0; index < count; index++) {
    lines.push(
      JSON.stringify({
        id: `case-${index}`,
        input_messages: [{ role: 'user', content: `question ${index}` }],
      }),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** An eval file taking its cases from a dataset file (`cases: ./cases.jsonl`). */
export function evalWithDataset(datasetPath) {
  return [
    'execution:',
    '  evaluators:',
    '    - { name: answered, type: contains, value: "answer" }',
    `cases: ${datasetPath}`,
    '',
  ].join('\n');
}

/**
 * Prints one figure and whether it is within its budget; returns true when it is. When run by
 * scripts/bench.mjs, the figure is also appended to the JSON lines file in
 * `AGENTV_BENCH_FIGURES`, from which bench.mjs writes the results JSON.
 */
export function report(name, value, unit, budget, ok, extra = {}) {
  // A figure not measured here says so, not a value it never had.
  const skipped = typeof extra.skipped === 'string' ? extra.skipped : extra.skipped && 'skipped';
  console.log(
    skipped
      ? `skip ${name}: ${skipped} (budget: ${budget})`
      : `${ok ? 'ok  ' : 'FAIL'} ${name}: ${value} ${unit} (budget: ${budget})`,
  );
  const file = process.env.AGENTV_BENCH_FIGURES;
  if (file) {
    const figure = { name, value: Number(value), unit, budget, ok, ...extra };
    appendFileSync(file, `${JSON.stringify(figure)}\n`);
  }
  return ok;
}
