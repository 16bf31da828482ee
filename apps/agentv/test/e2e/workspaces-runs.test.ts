import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, chromiumAvailable, launchChromium } from '../support/chromium.js';
import { processAlive } from '../support/processes.js';
import { BIN, type Project, parseJsonl, runAgentv } from '../support/project.js';
import { agentCase, answerOf, foldersIn, workspaceProject } from '../support/workspaces.js';

let project: Project | undefined;
const scratch: string[] = [];
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
  for (const dir of scratch.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function workspaceRoot(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentv-ws-root-'));
  scratch.push(dir);
  return dir;
}

async function waitUntil(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function results(file = 'out.jsonl') {
  return parseJsonl(readFileSync(project!.file(file), 'utf8'));
}

const FRESH = '- { name: fresh, type: file, path: count.txt, equals: "x" }';
const FIXED = `- { name: fixed, type: file, path: src/sum.js, contains: "a + b" }
- { name: changed, type: diff, must_change: [src/sum.js] }`;

/** Spawns `agentv eval` with `PID_DIR` set to the project; resolves the exit code when it ends. */
function spawnEval(args: string[]) {
  const child = spawn(process.execPath, [BIN, 'eval', ...args], {
    cwd: project!.dir,
    env: { ...process.env, CI: '1', NO_COLOR: '1', PID_DIR: project!.dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdout.resume();
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, closed, stderr: () => stderr };
}

/** Pids of the slow agents that have started (they write `agent-<pid>.pid` into the project). */
function agentPids(): number[] {
  return readdirSync(project!.dir)
    .filter((name) => /^agent-\d+\.pid$/.test(name))
    .map((name) => Number(name.slice('agent-'.length, -'.pid'.length)));
}

describe('workspaces and the ways a run ends', () => {
  it('Ctrl-C mid-run leaves no workspace behind', async () => {
    const root = await workspaceRoot();
    project = await workspaceProject({
      'evals/e.yaml': `workspace: { template: ./app }
evalcases:
${agentCase('slow-1', 'slow', FIXED)}${agentCase('slow-2', 'slow', FIXED)}`,
    });
    const run = spawnEval(['evals/e.yaml', '--out', 'out.jsonl', '--workspace-root', root]);
    await waitUntil(() => agentPids().length === 2);
    expect(foldersIn(root).some((name) => name.startsWith('agentv-run-'))).toBe(true);
    run.child.kill('SIGINT');
    expect(await run.closed).toBe(130);
    expect(foldersIn(root)).toEqual([]);
    for (const pid of agentPids()) await waitUntil(() => !processAlive(pid));
  });

  it('after kill -9 the next run sweeps what the killed one left', async () => {
    const root = await workspaceRoot();
    project = await workspaceProject({
      'evals/slow.yaml': `workspace: { template: ./app }
evalcases:
${agentCase('slow', 'slow', FIXED)}`,
      'evals/fix.yaml': `workspace: { template: ./app }
evalcases:
${agentCase('fix', 'fix', FIXED)}`,
    });
    const run = spawnEval(['evals/slow.yaml', '--out', 'slow.jsonl', '--workspace-root', root]);
    await waitUntil(() => agentPids().length === 1);
    run.child.kill('SIGKILL');
    await run.closed;
    // The watchdog stops the agent's group too; whichever comes first, it is gone after this.
    for (const pid of agentPids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already stopped by the watchdog.
      }
    }
    const left = foldersIn(root).filter((name) => name.startsWith('agentv-run-'));
    expect(left).toHaveLength(1);

    const next = await runAgentv(
      ['eval', 'evals/fix.yaml', '--out', 'out.jsonl', '--workspace-root', root],
      project.dir,
    );
    expect(next.code, next.stderr).toBe(0);
    expect(foldersIn(root)).toEqual([]);
  });
});

describe('workspaces with --repeat, several targets, --shard and --resume', () => {
  it('--repeat gives each repeat its own workspace', async () => {
    project = await workspaceProject({
      'evals/e.yaml': `workspace: { template: ./app }
evalcases:
${agentCase('count', 'count', FRESH)}`,
    });
    const run = await runAgentv(
      ['eval', 'evals/e.yaml', '--out', 'out.jsonl', '--repeat', '3'],
      project.dir,
    );
    expect(run.code, run.stderr).toBe(0);
    const [line] = results();
    expect(line!.repeats).toMatchObject({ count: 3, passed: 3 });
    const saved = readdirSync(project.file('out.workspaces')).filter((name) =>
      name.endsWith('.json'),
    );
    expect(saved.sort()).toEqual([
      'count_repeat-1.json',
      'count_repeat-2.json',
      'count_repeat-3.json',
    ]);
  });

  it('two targets: each (case, target) has its own workspace', async () => {
    project = await workspaceProject({
      'evals/e.yaml': `workspace: { template: ./app, mode: temp }
evalcases:
${agentCase('count', 'count', FRESH)}`,
    });
    const run = await runAgentv(
      ['eval', 'evals/e.yaml', '--out', 'out.jsonl', '--target', 'default', '--target', 'other'],
      project.dir,
    );
    expect(run.code, run.stderr).toBe(0);
    const lines = results();
    expect(lines.map((line) => [line.target, line.passed]).sort()).toEqual([
      ['default', true],
      ['other', true],
    ]);
    expect(answerOf(lines[0]!).cwd).not.toBe(answerOf(lines[1]!).cwd);
    const saved = readdirSync(project.file('out.workspaces')).filter((name) =>
      name.endsWith('.json'),
    );
    expect(saved.sort()).toEqual(['count_default.json', 'count_other.json']);
  });

  it('--shard: each shard runs its cases in workspaces and saves its changes beside its file', async () => {
    project = await workspaceProject({
      'evals/e.yaml': `workspace: { template: ./app }
evalcases:
${['a', 'b', 'c', 'd'].map((id) => agentCase(id, 'fix', FIXED)).join('')}`,
    });
    const ids: string[] = [];
    for (const shard of ['1/2', '2/2']) {
      const out = `shard-${shard[0]}.jsonl`;
      const run = await runAgentv(
        ['eval', 'evals/e.yaml', '--out', out, '--shard', shard],
        project.dir,
      );
      expect(run.code, run.stderr).toBe(0);
      for (const line of results(out)) {
        expect(line.workspace.files_changed).toBe(1);
        expect(existsSync(project.file(`shard-${shard[0]}.workspaces/${line.eval_id}.diff`))).toBe(
          true,
        );
        ids.push(line.eval_id);
      }
    }
    expect(ids.sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('--resume runs an errored case again in a fresh workspace', async () => {
    project = await workspaceProject({
      'evals/e.yaml': `workspace: { template: ./app }
evalcases:
${agentCase('steady', 'fix', FIXED)}${agentCase('flaky', 'flaky', FIXED)}`,
      fail: '',
    });
    const env = { PID_DIR: project.dir };
    const root = await workspaceRoot();
    const first = await runAgentv(
      ['eval', 'evals/e.yaml', '--out', 'out.jsonl', '--workspace-root', root],
      project.dir,
      env,
    );
    expect(first.code).toBe(2);
    const errored = results().find((line) => line.eval_id === 'flaky')!;
    expect(errored.error).toContain('flaky: failing on purpose');
    // An errored case's workspace is kept, and listed.
    expect(first.stderr).toContain(`flaky  ${errored.workspace.kept_at}`);

    await unlink(project.file('fail'));
    const resumed = await runAgentv(
      ['eval', 'evals/e.yaml', '--resume', 'out.jsonl'],
      project.dir,
      env,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    const last = results()
      .filter((line) => line.eval_id === 'flaky')
      .at(-1)!;
    expect(last).toMatchObject({ passed: true, workspace: { files_changed: 1 } });
    expect(last.workspace.kept_at).toBeUndefined();
  });
});

describe('agentv grade in a kept workspace', () => {
  it('grades the case again in the workspace its run kept, with the changes the run saved', async () => {
    project = await workspaceProject({
      'evals/e.yaml': `workspace: { template: ./app }
evalcases:
${agentCase('fix', 'fix', FIXED)}${agentCase('lazy', 'lazy', FIXED)}`,
    });
    const run = await runAgentv(
      [
        'eval',
        'evals/e.yaml',
        '--out',
        'out.jsonl',
        '--include-trace',
        '--workspace-root',
        await workspaceRoot(),
      ],
      project.dir,
    );
    expect(run.code).toBe(1);
    const lazy = results().find((line) => line.eval_id === 'lazy')!;
    const keptAt: string = lazy.workspace.kept_at;
    // Someone fixes the bug by hand in the kept workspace; the agent's own changes stay none.
    await writeFile(path.join(keptAt, 'src/sum.js'), 'export const sum = (a, b) => a + b;\n');

    const graded = await runAgentv(
      ['grade', 'out.jsonl', '--workspace', keptAt, '--out', 'regraded.jsonl'],
      project.dir,
    );
    expect(graded.code, graded.stderr).toBe(1);
    const [line] = results('regraded.jsonl');
    expect(line!.eval_id).toBe('lazy');
    const verdicts = Object.fromEntries(
      line!.evaluator_results.map((result: { name: string; verdict: string }) => [
        result.name,
        result.verdict,
      ]),
    );
    // The file grader reads the workspace as it is now; the diff grader what the run measured.
    expect(verdicts).toEqual({ fixed: 'pass', changed: 'fail' });
    expect(line!.workspace).toMatchObject({ files_changed: 0, kept_at: keptAt });
    expect(existsSync(keptAt)).toBe(true);

    // Without --workspace every line is graded: in its kept workspace, or (a passing case's
    // workspace was removed) without one, where workspace graders cannot grade.
    const all = await runAgentv(['grade', 'out.jsonl', '--out', 'all.jsonl'], project.dir);
    expect(all.code).toBe(2);
    const regraded = Object.fromEntries(results('all.jsonl').map((l) => [l.eval_id, l]));
    expect(regraded.lazy.evaluator_results[0].verdict).toBe('pass');
    expect(regraded.fix.error).toContain('needs a workspace, and case "fix" has none');

    const unknown = await runAgentv(
      ['grade', 'out.jsonl', '--workspace', project.file('elsewhere'), '--out', 'x.jsonl'],
      project.dir,
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('names');
    expect(unknown.stderr).toContain('as its kept workspace');
  });
});

describe('workspaces from the library API', () => {
  it('evaluate() runs a case in its workspace and keeps it when asked', async () => {
    project = await workspaceProject({
      'evals/e.yaml': `workspace: { template: ./app }
evalcases:
${agentCase('fix', 'fix', FIXED)}`,
    });
    const packages = fileURLToPath(new URL('../../../../packages/', import.meta.url));
    const script = `
import { createProviderRegistry, evaluate } from ${JSON.stringify(path.join(packages, 'core/dist/index.js'))};
import { cliProviderFactory } from ${JSON.stringify(path.join(packages, 'provider-cli/dist/index.js'))};
const kept = [];
const outcome = await evaluate({
  evalFiles: ['evals/e.yaml'],
  providers: createProviderRegistry([cliProviderFactory]),
  keepWorkspaces: true,
  workspaceRoot: ${JSON.stringify(await workspaceRoot())},
  onWorkspaceKept: (path) => kept.push(path),
});
const [result] = outcome.results;
console.log(JSON.stringify({ passed: result.passed, workspace: result.workspace, kept }));
`;
    await writeFile(project.file('run.mjs'), script);
    const { stdout } = await promisify(execFile)(process.execPath, ['run.mjs'], {
      cwd: project.dir,
    });
    const printed = JSON.parse(stdout);
    expect(printed).toMatchObject({ passed: true, workspace: { filesChanged: 1 } });
    expect(printed.kept).toEqual([printed.workspace.keptAt]);
    expect(readFileSync(path.join(printed.kept[0], 'src/sum.js'), 'utf8')).toContain('a + b');
  });
});

describe('workspaces with batch and persistent targets', () => {
  it('a batch target refuses per_case workspaces up front and runs shared ones', async () => {
    project = await workspaceProject(
      {
        'batch.mjs': `import { readFileSync, writeFileSync } from 'node:fs';
const [input, output] = process.argv.slice(2);
const lines = readFileSync(input, 'utf8').trim().split('\\n').map((line) => JSON.parse(line));
writeFileSync('batch-ran', String(lines.length));
writeFileSync(output, lines.map((r) => JSON.stringify({ id: r.id, text: r.workspace === process.cwd() ? 'in workspace' : 'elsewhere' })).join('\\n'));
`,
        'evals/per-case.yaml': `execution: { target: batcher }
workspace: { template: ./app }
evalcases:
${agentCase('a', 'x', '- { type: contains, value: in workspace }')}`,
        'evals/shared.yaml': `execution: { target: batcher }
workspace: { template: ./app, isolation: shared }
evalcases:
${agentCase('a', 'x', '- { type: contains, value: in workspace }')}${agentCase('b', 'x', '- { type: file, path: batch-ran, equals: "2" }')}`,
      },
      '',
    );
    const targets = readFileSync(project.file('.agentv/targets.yaml'), 'utf8');
    await writeFile(
      project.file('.agentv/targets.yaml'),
      `${targets}  - name: batcher
    provider: cli
    provider_batching: true
    command_template: node ${project.file('batch.mjs')} {INPUT_FILE} {OUTPUT_FILE}
`,
    );
    const refused = await runAgentv(['eval', 'evals/per-case.yaml'], project.dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('a batch cannot run per-case workspaces');
    const shared = await runAgentv(
      ['eval', 'evals/shared.yaml', '--out', 'out.jsonl'],
      project.dir,
    );
    expect(shared.code, shared.stderr).toBe(0);
    expect(results().map((line) => line.passed)).toEqual([true, true]);
  });

  it("a persistent agent is told each case's workspace in its request line", async () => {
    project = await workspaceProject({
      'persistent.mjs': `import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
createInterface({ input: process.stdin }).on('line', (line) => {
  const request = JSON.parse(line);
  writeFileSync(request.workspace + '/NOTES.md', 'done by ' + process.pid);
  process.stdout.write(JSON.stringify({ id: request.id, text: 'pid ' + process.pid }) + '\\n');
});
`,
      'evals/e.yaml': `execution: { target: keeper }
workspace: { template: ./app }
evalcases:
${['a', 'b', 'c'].map((id) => agentCase(id, 'x', '- { type: file, path: NOTES.md, contains: "done by" }')).join('')}`,
    });
    const targets = readFileSync(project.file('.agentv/targets.yaml'), 'utf8');
    await writeFile(
      project.file('.agentv/targets.yaml'),
      `${targets}  - name: keeper
    provider: cli
    mode: persistent
    workers: 1
    command_template: node ${project.file('persistent.mjs')}
`,
    );
    const run = await runAgentv(['eval', 'evals/e.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code, run.stderr).toBe(0);
    const lines = results();
    expect(lines.every((line) => line.workspace.files_changed === 1)).toBe(true);
    // One process served every case, each in its own workspace.
    expect(new Set(lines.map((line) => line.candidate_answer)).size).toBe(1);
  });
});

describe.skipIf(!chromiumAvailable())('the HTML report of workspaces in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the changed files and the diff, collapsed and escaped', async () => {
    project = await workspaceProject({
      'evals/e.yaml': `workspace: { template: ./app }
evalcases:
${agentCase('hostile', 'hostile', FIXED)}`,
    });
    const run = await runAgentv(
      ['eval', 'evals/e.yaml', '--out', 'out.jsonl', '--html', 'report.html'],
      project.dir,
    );
    expect(run.code, run.stderr).toBe(0);
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(pathToFileURL(project.file('report.html')).href);
    await page.locator('tr.case-row').first().click();
    const summary = page.locator('[data-testid=workspace-summary]');
    await summary.waitFor({ state: 'visible' });
    expect(await summary.textContent()).toBe('2 files changed, +2 \u22121');
    expect(await page.locator('[data-testid=workspace-files] li').allTextContents()).toEqual([
      'modified  src/sum.js',
      'added  x.html',
    ]);
    const diff = page.locator('[data-testid=workspace-diff]');
    expect(await diff.getAttribute('open')).toBeNull();
    await diff.locator('summary').click();
    expect(await diff.locator('pre').textContent()).toContain('+</script><script>window.pwned = 1');
    expect(await page.evaluate<unknown>('window.pwned')).toBeUndefined();
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('the HTML report of a run with workspaces', () => {
  it('embeds the changed files and the diff of each case', async () => {
    project = await workspaceProject({
      'evals/e.yaml': `workspace: { template: ./app }
evalcases:
${agentCase('fix', 'fix', FIXED)}`,
    });
    const run = await runAgentv(
      ['eval', 'evals/e.yaml', '--out', 'out.jsonl', '--html', 'report.html'],
      project.dir,
    );
    expect(run.code, run.stderr).toBe(0);
    const html = readFileSync(project.file('report.html'), 'utf8');
    const data = JSON.parse(
      /<script type="application\/json" id="agentv-data">([^<]*)<\/script>/.exec(html)![1]!,
    );
    expect(data.cases[0].workspace).toMatchObject({
      filesChanged: 1,
      files: [{ path: 'src/sum.js', status: 'modified', binary: false }],
    });
    expect(data.cases[0].workspace.diff).toContain('+export const sum = (a, b) => a + b;');
    expect(await readdir(project.file('out.workspaces'))).toEqual(['fix.diff', 'fix.json']);
  });
});
