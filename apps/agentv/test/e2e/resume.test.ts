import { spawn } from 'node:child_process';
import { access, readFile, truncate, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BIN,
  collectRun,
  createProject,
  type Project,
  parseJsonl,
  runAgentv,
} from '../support/project.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

// Logs every call to calls.log. Until a file `release` exists, "slow" prompts hang
// (their pids go to hung.log) and "crash" prompts fail (an errored case); afterwards
// every prompt is answered.
const AGENT = `
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
const args = process.argv.slice(2);
const prompt = args[args.indexOf('--prompt') + 1];
const out = args[args.indexOf('--out') + 1];
appendFileSync('calls.log', prompt + '\\n');
const released = existsSync('release');
if (prompt.includes('crash') && !released) { console.error('agent: crashed'); process.exit(3); }
if (prompt.includes('slow') && !released) {
  appendFileSync('hung.log', process.pid + '\\n');
  setInterval(() => {}, 1000);
}
else writeFileSync(out, JSON.stringify({ text: 'You said: ' + prompt }));
`;

const TARGETS = `targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs --prompt {PROMPT} --out {OUTPUT_FILE}
    max_retries: 0
`;

const evalCase = (id: string, prompt: string) => `
  - id: ${id}
    input_messages: [{ role: user, content: ${JSON.stringify(prompt)} }]
    evaluators: [{ type: contains, value: "You said" }]
`;

const EVALS = `execution:\n  target: default\nevalcases:\n${[
  evalCase('q1', 'quick one'),
  evalCase('q2', 'quick two'),
  evalCase('q3', 'quick three'),
  evalCase('boom', 'crash now'),
  evalCase('s1', 'slow one'),
  evalCase('s2', 'slow two'),
].join('')}`;

async function createResumeProject(): Promise<Project> {
  return createProject({
    'agent.mjs': AGENT,
    '.agentv/targets.yaml': TARGETS,
    'evals/e.yaml': EVALS,
  });
}

function waitFor(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = async () => {
      if (await check()) return resolve();
      if (Date.now() > deadline) return reject(new Error('timed out waiting'));
      setTimeout(poll, 50);
    };
    void poll();
  });
}

const calls = async (p: Project) =>
  (await readFile(p.file('calls.log'), 'utf8').catch(() => ''))
    .split('\n')
    .filter((line) => line !== '');

/** Starts a run and waits until the 4 fast cases are written and both slow agents hang. */
async function hungRun(p: Project, args: string[]) {
  const child = spawn(process.execPath, [BIN, 'eval', 'evals/e.yaml', ...args, '--workers', '6'], {
    cwd: p.dir,
    env: { ...process.env, CI: '1', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run = collectRun(child);
  await waitFor(async () => {
    const written = parseJsonl(await readFile(p.file('out.jsonl'), 'utf8').catch(() => ''));
    // hung.log, not calls.log: an agent logs its call before it records its pid as hanging.
    const hung = (await readFile(p.file('hung.log'), 'utf8').catch(() => '')).split('\n');
    return written.length === 4 && hung.filter(Boolean).length === 2;
  });
  return { child, run };
}

/** Starts a run, waits until the 4 fast cases are written and both slow agents run, sends SIGINT. */
async function interruptedRun(p: Project, extra: string[] = []) {
  const { child, run } = await hungRun(p, ['--out', 'out.jsonl', ...extra]);
  child.kill('SIGINT');
  return run;
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

describe('agentv eval --resume', () => {
  it('an interrupted run without reports, which keeps no results, still names what did not run', async () => {
    project = await createResumeProject();
    const run = await interruptedRun(project, []);
    expect(run.code).toBe(130);
    expect(run.stdout).toContain('interrupted: 2 of 6 cases did not run');
    expect(run.stdout).toContain('--resume out.jsonl');
  });

  it('an interrupted run says so in its summary, JUnit and HTML report', async () => {
    project = await createResumeProject();
    const run = await interruptedRun(project, ['--junit', 'junit.xml', '--html', 'report.html']);
    expect(run.code).toBe(130);
    expect(run.stdout).toContain('interrupted: 2 of 6 cases did not run');
    expect(run.stdout).toContain('--resume out.jsonl');
    const junit = await readFile(project.file('junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuites [^>]*tests="6"[^>]*skipped="2"/);
    expect(junit).toContain('name="not run (interrupted)"');
    expect(junit.match(/<skipped /g)).toHaveLength(2);
    expect(junit).toMatch(/<testcase name="s1"[^>]*>\s*<skipped/);
    const html = await readFile(project.file('report.html'), 'utf8');
    expect(html).toContain('id="agentv-interrupted"');
    expect(html).toContain('interrupted: 2 of 6 cases did not run');
  });

  it('finishes the rest without re-running finished cases, and re-runs errored ones', async () => {
    project = await createResumeProject();
    expect((await interruptedRun(project)).code).toBe(130);
    await writeFile(project.file('release'), '');
    await writeFile(project.file('calls.log'), '');

    const resumed = await runAgentv(
      ['eval', 'evals/e.yaml', '--resume', 'out.jsonl', '--junit', 'junit.xml'],
      project.dir,
    );
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    // Only the two slow cases and the errored one ran again, as the run says first.
    expect((await calls(project)).sort()).toEqual(['crash now', 'slow one', 'slow two']);
    expect(resumed.stdout).toMatch(
      /^Resuming out\.jsonl: 3 of 6 cases already have a result; running 3\n/,
    );
    // The summary covers the whole run, old lines and new.
    expect(resumed.stdout).toContain('6 cases: 6 passed, 0 failed, 0 errored');
    expect(resumed.stdout).not.toContain('interrupted');
    const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(lines.map((line) => line.eval_id).sort()).toEqual([
      'boom',
      'q1',
      'q2',
      'q3',
      's1',
      's2',
    ]);
    expect(lines.every((line) => line.error === undefined)).toBe(true);
    expect(new Set(lines.map((line) => line.run.id)).size).toBe(1);
    const junit = await readFile(project.file('junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuites [^>]*tests="6" failures="0" errors="0"/);
    expect(junit).not.toContain('<skipped');

    // The resumed file merges as one complete run.
    const merged = await runAgentv(
      ['results', 'merge', 'out.jsonl', '--out', 'all.jsonl'],
      project.dir,
    );
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(0);

    // Resuming a finished run runs nothing.
    await writeFile(project.file('calls.log'), '');
    const again = await runAgentv(['eval', 'evals/e.yaml', '--resume', 'out.jsonl'], project.dir);
    expect(again.code).toBe(0);
    expect(await calls(project)).toEqual([]);
    expect(again.stdout).toContain('6 cases: 6 passed');
    expect(again.stdout).toMatch(
      /^Resuming out\.jsonl: all 6 cases already have a result; nothing to run\n/,
    );
  });

  it('--retry-errors runs only the errored cases', async () => {
    project = await createResumeProject();
    await writeFile(project.file('evals/e.yaml'), EVALS.replace(/\n {2}- id: s1[\s\S]*$/, '\n'));
    const first = await runAgentv(['eval', 'evals/e.yaml', '--out', 'out.jsonl'], project.dir);
    expect(first.code).toBe(2);
    expect(first.stdout).toContain('1 errored');
    await writeFile(project.file('release'), '');
    await writeFile(project.file('calls.log'), '');
    const retried = await runAgentv(
      ['eval', 'evals/e.yaml', '--resume', 'out.jsonl', '--retry-errors'],
      project.dir,
    );
    expect(retried.code).toBe(0);
    expect(await calls(project)).toEqual(['crash now']);
    expect(retried.stdout).toMatch(/^Resuming out\.jsonl: 1 case with an error to run again\n/);
    expect(retried.stdout).toContain('4 cases: 4 passed, 0 failed, 0 errored');
    const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(lines.map((line) => line.eval_id).sort()).toEqual(['boom', 'q1', 'q2', 'q3']);
  });

  it('--retry-errors leaves never-run cases out and says the run is incomplete', async () => {
    project = await createResumeProject();
    expect((await interruptedRun(project)).code).toBe(130);
    await writeFile(project.file('release'), '');
    await writeFile(project.file('calls.log'), '');
    const retried = await runAgentv(
      ['eval', 'evals/e.yaml', '--resume', 'out.jsonl', '--retry-errors'],
      project.dir,
    );
    expect(await calls(project)).toEqual(['crash now']);
    expect(retried.stdout).toContain('interrupted: 2 of 6 cases did not run');
    expect(retried.code).toBe(2);
  });

  it('refuses a result file of another run, and starts a new run at a missing path', async () => {
    project = await createResumeProject();
    await writeFile(project.file('release'), '');
    const first = await runAgentv(
      ['eval', 'evals/e.yaml', '--out', 'out.jsonl', '--eval-id', 'q*'],
      project.dir,
    );
    expect(first.code).toBe(0);
    const before = await readFile(project.file('out.jsonl'), 'utf8');
    await writeFile(project.file('calls.log'), '');

    const wrong = await runAgentv(['eval', 'evals/e.yaml', '--resume', 'out.jsonl'], project.dir);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('out.jsonl:1 belongs to another run');
    expect(wrong.stderr).toContain('hint:');
    expect(wrong.stderr).not.toMatch(/\n\s+at /);
    expect(await calls(project)).toEqual([]);
    expect(await readFile(project.file('out.jsonl'), 'utf8')).toBe(before);

    const fresh = await runAgentv(['eval', 'evals/e.yaml', '--resume', 'new.jsonl'], project.dir);
    expect(fresh.code).toBe(0);
    expect(parseJsonl(await readFile(project.file('new.jsonl'), 'utf8'))).toHaveLength(6);

    const both = await runAgentv(
      ['eval', 'evals/e.yaml', '--retry-errors', '--out', 'x.jsonl'],
      project.dir,
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--retry-errors needs --resume PATH');
  });

  it('drops a last line cut short, says so, and runs its case again', async () => {
    project = await createResumeProject();
    await writeFile(project.file('release'), '');
    expect(
      (await runAgentv(['eval', 'evals/e.yaml', '--out', 'out.jsonl'], project.dir)).code,
    ).toBe(0);
    const whole = await readFile(project.file('out.jsonl'), 'utf8');
    const cutCase = parseJsonl(whole)[5]!.eval_id;
    // A run stopped in the middle of writing its sixth line.
    await truncate(project.file('out.jsonl'), Buffer.byteLength(whole) - 40);
    await writeFile(project.file('calls.log'), '');

    const resumed = await runAgentv(['eval', 'evals/e.yaml', '--resume', 'out.jsonl'], project.dir);
    expect(resumed.stderr).toBe(
      'warning: out.jsonl:6: the last line is incomplete (the run that wrote it was interrupted); it is dropped and its case runs again\n',
    );
    expect(resumed.code).toBe(0);
    expect(await calls(project)).toHaveLength(1);
    const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(lines.map((line) => line.eval_id).sort()).toEqual([
      'boom',
      'q1',
      'q2',
      'q3',
      's1',
      's2',
    ]);
    expect(lines[5]!.eval_id).toBe(cutCase);
  });

  it('refuses a line cut short in the middle of the file, naming its line', async () => {
    project = await createResumeProject();
    await writeFile(project.file('release'), '');
    expect(
      (await runAgentv(['eval', 'evals/e.yaml', '--out', 'out.jsonl'], project.dir)).code,
    ).toBe(0);
    const rows = (await readFile(project.file('out.jsonl'), 'utf8')).split('\n');
    rows[2] = rows[2]!.slice(0, 30);
    const broken = rows.join('\n');
    await writeFile(project.file('out.jsonl'), broken);
    await writeFile(project.file('calls.log'), '');

    const resumed = await runAgentv(['eval', 'evals/e.yaml', '--resume', 'out.jsonl'], project.dir);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/^agentv: out\.jsonl:3:\d+: invalid JSON/);
    expect(resumed.stderr).not.toContain('incomplete');
    expect(resumed.stderr).toContain('hint:');
    expect(await calls(project)).toEqual([]);
    expect(await readFile(project.file('out.jsonl'), 'utf8')).toBe(broken);
  });

  it('refuses a second run on a result file another run is writing', async () => {
    project = await createResumeProject();
    const { child, run } = await hungRun(project, ['--resume', 'out.jsonl']);
    expect(await exists(project.file('out.jsonl.lock'))).toBe(true);
    await writeFile(project.file('calls.log'), '');

    for (const flags of [
      ['--resume', 'out.jsonl'],
      ['--out', 'out.jsonl'],
    ]) {
      const second = await runAgentv(['eval', 'evals/e.yaml', ...flags], project.dir);
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(
        new RegExp(
          `^agentv: out\\.jsonl is being written by another agentv run \\(pid ${child.pid}, started \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\)\n`,
        ),
      );
      expect(second.stderr).toContain(
        'hint: wait for that run to end, or write to another file; if no agentv run is writing out.jsonl, delete out.jsonl.lock',
      );
    }
    // Neither started an agent nor touched the file.
    expect(await calls(project)).toEqual([]);
    expect(parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'))).toHaveLength(4);

    child.kill('SIGINT');
    expect((await run).code).toBe(130);
    expect(await exists(project.file('out.jsonl.lock'))).toBe(false);
  });

  it('takes over the lock of a run killed with kill -9', async () => {
    project = await createResumeProject();
    const { child, run } = await hungRun(project, ['--out', 'out.jsonl']);
    child.kill('SIGKILL');
    await run;
    // A run killed with -9 cannot stop its agents (yet); the test does.
    for (const pid of (await readFile(project.file('hung.log'), 'utf8')).split('\n')) {
      try {
        if (pid !== '') process.kill(Number(pid), 'SIGKILL');
      } catch {
        // Stopped already.
      }
    }
    expect(await exists(project.file('out.jsonl.lock'))).toBe(true);
    await writeFile(project.file('release'), '');

    const resumed = await runAgentv(['eval', 'evals/e.yaml', '--resume', 'out.jsonl'], project.dir);
    expect(resumed.stderr).toMatch(
      new RegExp(
        `^note: out\\.jsonl\\.lock was left by an agentv run that is no longer running \\(pid ${child.pid}, started [^)]+\\); taking it over\n$`,
      ),
    );
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('6 cases: 6 passed');
    expect(await exists(project.file('out.jsonl.lock'))).toBe(false);
  });
});
