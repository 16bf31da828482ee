import { type ChildProcess, spawn } from 'node:child_process';
import { appendFile, rm, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, createProject, type Project, runAgentv } from '../support/project.js';
import { spawnInTerminal } from '../support/run-in-terminal.js';

let project: Project | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  if (child?.exitCode === null) child.kill('SIGKILL');
  child = undefined;
  await project?.cleanup();
  project = undefined;
});

/** Echoes its prompt; while a file `hold` exists in the project it waits (a run in progress). */
const AGENT = `
import { existsSync } from 'node:fs';
const prompt = process.argv[2];
while (existsSync('hold')) await new Promise((resolve) => setTimeout(resolve, 20));
process.stdout.write('You said: ' + prompt);
`;

const FILES = {
  'agent.mjs': AGENT,
  'targets.yaml': `targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs {PROMPT}
    max_retries: 0
`,
  'evals/a.yaml': `evalcases:
  - id: a-case
    input_messages: [{ role: user, content: [{ type: file, value: ./a-note.txt }] }]
    evaluators: [{ type: contains, value: You said }]
`,
  'evals/a-note.txt': 'note for a',
  'evals/b.yaml': `evalcases:
  - id: b-case
    input_messages: [{ role: user, content: hello b }]
    evaluators: [{ type: code_judge, script: node ./judge.mjs }]
`,
  'evals/judge.mjs': `process.stdout.write(JSON.stringify({ score: 1, reasoning: 'ok' }));\n`,
};

const WATCHING = /agentv: watching \d+ files? for changes \(Ctrl-C to stop\)\n/g;

/** Starts `agentv eval evals --watch` with piped output; `output()` is everything printed so far. */
function startWatch(dir: string) {
  let output = '';
  child = spawn(process.execPath, [BIN, 'eval', 'evals', '--watch'], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child!.on('close', resolve));
  return { output: () => output, exited, process: child };
}

/** Polls until `check` holds; the deadline only guards against a hung test. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const count = (text: string, pattern: RegExp) => [...text.matchAll(pattern)].length;

/** The passes after the first, split at the separator a piped watch prints between them. */
function passes(output: string): string[] {
  return output.split(`\n${'-'.repeat(72)}\n`).slice(1);
}

describe('agentv eval --watch', () => {
  it('re-runs only the eval files a change affects, queues one pass behind a running one, and ends on Ctrl-C', async () => {
    project = await createProject(FILES);
    const watch = startWatch(project.dir);
    await until(() => count(watch.output(), WATCHING) === 1, 'the first pass');
    expect(watch.output()).toContain('2 cases: 2 passed, 0 failed, 0 errored');

    // An attached file: only the eval file attaching it runs.
    await appendFile(project.file('evals/a-note.txt'), ' (edited)');
    await until(() => count(watch.output(), WATCHING) === 2, 'the pass after a-note.txt');
    let pass = passes(watch.output()).at(-1)!;
    expect(pass).toMatch(/^agentv: evals\/a-note\.txt changed; running evals\/a\.yaml\n/);
    expect(pass).toContain('PASS  a-case');
    expect(pass).not.toContain('b-case');
    expect(pass).toContain('1 case: 1 passed, 0 failed, 0 errored');

    // A code_judge script: only the eval file grading with it runs.
    await appendFile(project.file('evals/judge.mjs'), '// edited\n');
    await until(() => count(watch.output(), WATCHING) === 3, 'the pass after judge.mjs');
    pass = passes(watch.output()).at(-1)!;
    expect(pass).toMatch(/^agentv: evals\/judge\.mjs changed; running evals\/b\.yaml\n/);
    expect(pass).toContain('PASS  b-case');
    expect(pass).not.toContain('a-case');

    // The targets file: every eval file runs.
    await appendFile(project.file('targets.yaml'), '    timeout_seconds: 30\n');
    await until(() => count(watch.output(), WATCHING) === 4, 'the pass after targets.yaml');
    pass = passes(watch.output()).at(-1)!;
    expect(pass).toMatch(
      /^agentv: targets\.yaml changed; running evals\/a\.yaml, evals\/b\.yaml\n/,
    );
    expect(pass).toContain('2 cases: 2 passed, 0 failed, 0 errored');

    // Changes while a pass runs (the agent waits on `hold`): exactly one pass after it.
    await writeFile(project.file('hold'), '');
    await appendFile(project.file('evals/a.yaml'), '# edit 1\n');
    await until(() => passes(watch.output()).length === 4, 'the pass after edit 1 to start');
    for (const edit of [2, 3, 4])
      await appendFile(project.file('evals/a.yaml'), `# edit ${edit}\n`);
    await appendFile(project.file('evals/b.yaml'), '# edited during the run\n');
    // Let the watcher see the edits (longer than its debounce) before the running pass ends.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(count(watch.output(), WATCHING)).toBe(4);
    await rm(project.file('hold'));
    await until(() => count(watch.output(), WATCHING) === 5, 'the queued pass');
    const all = passes(watch.output());
    expect(all).toHaveLength(5);
    expect(all[3]).toMatch(/^agentv: evals\/a\.yaml changed; running evals\/a\.yaml\n/);
    // The running pass printed its summary, then the queued one ran both edited files.
    expect(all[3]).toContain('1 case: 1 passed, 0 failed, 0 errored');
    expect(all[4]).toMatch(
      /^agentv: evals\/a\.yaml, evals\/b\.yaml changed; running evals\/a\.yaml, evals\/b\.yaml\n/,
    );
    expect(all[4]).toContain('2 cases: 2 passed, 0 failed, 0 errored');

    watch.process.kill('SIGINT');
    // Exit code of the last pass, which passed.
    expect(await watch.exited).toBe(0);
    expect(passes(watch.output())).toHaveLength(5);
  }, 120_000);

  it('keeps watching after a pass with invalid input and exits with its code on Ctrl-C', async () => {
    project = await createProject(FILES);
    const watch = startWatch(project.dir);
    await until(() => count(watch.output(), WATCHING) === 1, 'the first pass');
    await writeFile(
      project.file('evals/b.yaml'),
      'evalcases:\n  - id: b-case\n    evaluators: [{ type: contains, value: x }]\n',
    );
    await until(() => count(watch.output(), WATCHING) === 2, 'the pass after the broken edit');
    const pass = passes(watch.output()).at(-1)!;
    expect(pass).toContain('agentv: evals/b.yaml changed; running evals/b.yaml\n');
    expect(pass).toContain(
      'error: evals/b.yaml:2:5: case "b-case": missing required key "input_messages" (hint: add `input_messages:` with at least one message, e.g. `- {role: user, content: "..."}`, or a conversation (`turns:` / `simulated_user:`))\n',
    );
    watch.process.kill('SIGINT');
    expect(await watch.exited).toBe(2);
  }, 120_000);

  it('Ctrl-C during a pass stops it and exits 130', async () => {
    project = await createProject(FILES);
    const watch = startWatch(project.dir);
    await until(() => count(watch.output(), WATCHING) === 1, 'the first pass');
    await writeFile(project.file('hold'), '');
    await appendFile(project.file('evals/a-note.txt'), ' (edited)');
    await until(() => passes(watch.output()).length === 1, 'the second pass to start');
    watch.process.kill('SIGINT');
    expect(await watch.exited).toBe(130);
    expect(watch.output()).toContain('agentv: SIGINT received, stopping running cases');
    expect(count(watch.output(), WATCHING)).toBe(1);
  }, 120_000);

  it('on a terminal, clears the screen before a pass instead of printing a separator', async () => {
    project = await createProject(FILES);
    child = spawnInTerminal(['eval', 'evals', '--watch'], project.dir);
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child!.on('close', resolve));
    const watching = /agentv: watching \d+ files? for changes \(Ctrl-C to stop\)/g;
    await until(() => count(output, watching) === 1, 'the first pass');
    await appendFile(project.file('evals/a-note.txt'), ' (edited)');
    await until(() => count(output, watching) === 2, 'the second pass');
    expect(output).toContain(
      '\x1b[2J\x1b[3J\x1b[Hagentv: evals/a-note.txt changed; running evals/a.yaml\r\n',
    );
    expect(output).not.toContain('-'.repeat(72));
    // Ctrl-C typed in the terminal.
    child.stdin?.write('\x03');
    expect(await exited).toBe(0);
  }, 120_000);

  it('refuses --watch with --resume, --shard or --list', async () => {
    project = await createProject(FILES);
    for (const [flags, name] of [
      [['--shard', '1/2'], '--shard'],
      [['--list'], '--list'],
      [['--resume', 'old.jsonl'], '--resume'],
    ] as const) {
      const run = await runAgentv(['eval', 'evals', '--watch', ...flags], project.dir);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        `agentv: --watch cannot be combined with ${name}\n  hint: run agentv eval ${name} without --watch\n`,
      );
    }
  });
});
