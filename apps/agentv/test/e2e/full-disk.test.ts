import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';
import { cannotMount, mountTmpfs, type Tmpfs } from '../support/tmpfs.js';

let project: Project | undefined;
let disk: Tmpfs | undefined;
afterEach(async () => {
  await disk?.unmount();
  disk = undefined;
  await project?.cleanup();
  project = undefined;
});

// Logs every call to calls.log (outside the small disk) and answers with 16 KB of text,
// so a 256 KiB disk fills after about 15 result lines.
const AGENT = `
import { appendFileSync, writeFileSync } from 'node:fs';
const args = process.argv.slice(2);
const prompt = args[args.indexOf('--prompt') + 1];
const out = args[args.indexOf('--out') + 1];
appendFileSync('calls.log', prompt + '\\n');
writeFileSync(out, JSON.stringify({ text: 'You said: ' + prompt + ' ' + 'x'.repeat(16000) }));
`;

const TARGETS = `targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs --prompt {PROMPT} --out {OUTPUT_FILE}
    max_retries: 0
`;

const CASES = 60;
const WORKERS = 4;

const EVALS = `evalcases:\n${Array.from(
  { length: CASES },
  (_, index) => `  - id: c${String(index).padStart(2, '0')}
    input_messages: [{ role: user, content: "case ${index}" }]
    evaluators: [{ type: contains, value: "You said" }]
`,
).join('')}`;

async function createDiskProject(size: string): Promise<{ project: Project; disk: Tmpfs }> {
  project = await createProject({
    'agent.mjs': AGENT,
    '.agentv/targets.yaml': TARGETS,
    'evals/e.yaml': EVALS,
  });
  disk = await mountTmpfs(project.file('disk'), size);
  return { project, disk };
}

const calls = async (p: Project) =>
  (await readFile(p.file('calls.log'), 'utf8').catch(() => ''))
    .split('\n')
    .filter((line) => line !== '');

/** Every line of a JSONL file, which must end with a newline (no line cut short). */
async function wholeLines(filePath: string) {
  const text = await readFile(filePath, 'utf8');
  expect(text === '' || text.endsWith('\n')).toBe(true);
  return parseJsonl(text);
}

describe.skipIf(cannotMount)('a full disk', () => {
  it('stops the run when the result file cannot be written, keeps whole lines, and --resume finishes it', async () => {
    const { project, disk } = await createDiskProject('256k');
    const run = await runAgentv(
      ['eval', 'evals/e.yaml', '--out', 'disk/out.jsonl', '--workers', String(WORKERS)],
      project.dir,
      { CI: '1' },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).not.toContain('bug');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const saved = await wholeLines(project.file('disk/out.jsonl'));
    expect(saved.length).toBeGreaterThan(0);
    expect(saved.length).toBeLessThan(CASES);
    expect(run.stderr).toContain(
      'agentv: could not write disk/out.jsonl: no space left on device (ENOSPC); the run stopped after',
    );
    expect(run.stderr).toContain(`of ${CASES} cases; ${saved.length} results are saved in it`);
    expect(run.stderr).toContain(
      `hint: free some space on that disk, then run the same command with --resume disk/out.jsonl in place of --out to run the ${CASES - saved.length} cases not saved`,
    );
    // The summary of the cases that finished is printed first.
    expect(run.stdout).toMatch(/\d+ cases: \d+ passed, 0 failed, 0 errored/);
    // Scheduling stopped at once: besides the saved cases, at most the lines of the failed
    // write and the calls running when it failed.
    const ran = await calls(project);
    expect(ran.length).toBeLessThanOrEqual(saved.length + 2 * WORKERS);
    // The lock is gone with the run.
    expect(await readdir(disk.dir)).toEqual(['out.jsonl']);

    await disk.resize('4m');
    await writeFile(project.file('calls.log'), '');
    const resumed = await runAgentv(
      ['eval', 'evals/e.yaml', '--resume', 'disk/out.jsonl', '--workers', String(WORKERS)],
      project.dir,
      { CI: '1' },
    );
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(`${CASES} cases: ${CASES} passed`);
    expect(await calls(project)).toHaveLength(CASES - saved.length);
    const lines = await wholeLines(project.file('disk/out.jsonl'));
    expect(new Set(lines.map((line) => line.eval_id)).size).toBe(CASES);
  }, 120_000);

  it('leaves the JUnit and HTML reports as they were when they cannot be written, and the result file whole', async () => {
    const { project, disk } = await createDiskProject('64k');
    await writeFile(project.file('disk/junit.xml'), 'old junit');
    await writeFile(project.file('disk/report.html'), 'old report');
    await disk.fill();
    const run = await runAgentv(
      [
        'eval',
        'evals/e.yaml',
        '--eval-id',
        'c0*',
        '--out',
        'out.jsonl',
        '--junit',
        'disk/junit.xml',
        '--html',
        'disk/report.html',
      ],
      project.dir,
      { CI: '1' },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).not.toContain('bug');
    expect(run.stderr).toContain(
      'agentv: could not write the JUnit report to disk/junit.xml: no space left on device (ENOSPC); nor the HTML report to disk/report.html: no space left on device (ENOSPC)',
    );
    expect(run.stderr).toContain('hint: every result is saved in out.jsonl');
    expect(run.stdout).toContain('10 cases: 10 passed');
    expect(run.stdout).toContain('Results: out.jsonl');
    expect(await wholeLines(project.file('out.jsonl'))).toHaveLength(10);
    // No part of a report, no temp file: the old reports are untouched.
    expect((await readdir(disk.dir)).sort()).toEqual(['filler', 'junit.xml', 'report.html']);
    expect(await readFile(project.file('disk/junit.xml'), 'utf8')).toBe('old junit');
    expect(await readFile(project.file('disk/report.html'), 'utf8')).toBe('old report');

    // What the hint says: with space again, the reports are written from the result file.
    await rm(project.file('disk/filler'));
    await disk.resize('4m');
    const merged = await runAgentv(
      [
        'results',
        'merge',
        'out.jsonl',
        '--out',
        'all.jsonl',
        '--junit',
        'disk/junit.xml',
        '--html',
        'disk/report.html',
      ],
      project.dir,
    );
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(0);
    expect(await readFile(project.file('disk/junit.xml'), 'utf8')).toMatch(/tests="10"/);
  });

  it('stops the run when a prompt dump cannot be written; the result file keeps what finished', async () => {
    const { project, disk } = await createDiskProject('32k');
    const run = await runAgentv(
      [
        'eval',
        'evals/e.yaml',
        '--out',
        'out.jsonl',
        '--dump-prompts=disk/prompts',
        '--workers',
        String(WORKERS),
      ],
      project.dir,
      { CI: '1' },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).not.toContain('bug');
    const saved = await wholeLines(project.file('out.jsonl'));
    expect(saved.length).toBeLessThan(CASES);
    expect(run.stderr).toContain(
      'agentv: could not write prompt dumps to disk/prompts/: no space left on device (ENOSPC); the run stopped after',
    );
    expect(run.stderr).toContain(`; ${saved.length} results are saved in out.jsonl`);
    expect(run.stderr).toContain('--resume out.jsonl in place of --out');
    expect((await calls(project)).length).toBeLessThanOrEqual(saved.length + 2 * WORKERS);
    // Every dump is whole; no temp file is left.
    const dumps = await readdir(project.file('disk/prompts'));
    expect(dumps.length).toBeGreaterThan(0);
    for (const name of dumps) {
      expect(name).toMatch(/^c\d\d\.json$/);
      JSON.parse(await readFile(project.file(`disk/prompts/${name}`), 'utf8'));
    }
    expect(disk.dir).toBe(project.file('disk'));
  });
});
