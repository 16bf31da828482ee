import { readdir, readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  elementsNamed,
  parseXml,
} from '../../../../packages/results/src/test-support/parse-xml.js';
import { type Browser, chromiumAvailable, launchChromium } from '../support/chromium.js';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// Several targets in one run (issue 17): every case runs against every target,
// and the summary, JUnit and HTML reports put the targets side by side.

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

/**
 * `--persona good` knows the answer, `--persona bad` does not; each reports
 * its token usage (and `good` a cost), and appends one line per call to calls.log.
 */
const AGENT = `
import { appendFileSync, writeFileSync } from 'node:fs';
const args = process.argv.slice(2);
const persona = args[args.indexOf('--persona') + 1];
const prompt = args[args.indexOf('--prompt') + 1];
const out = args[args.indexOf('--out') + 1];
appendFileSync(new URL('./calls.log', import.meta.url), persona + ' ' + prompt + '\\n');
const good = persona === 'good';
writeFileSync(out, JSON.stringify({
  text: good ? 'The answer is 42.' : 'I do not know.',
  token_usage: good ? { input: 100, output: 10 } : { input: 50, output: 5 },
  ...(good ? { cost_usd: 0.002 } : {}),
}));
`;

const TARGETS = `targets:
  - name: good
    provider: cli
    cwd: ..
    command_template: node agent.mjs --persona good --prompt {PROMPT} --out {OUTPUT_FILE}
    max_retries: 0
  - name: bad
    provider: cli
    cwd: ..
    command_template: node agent.mjs --persona bad --prompt {PROMPT} --out {OUTPUT_FILE}
    max_retries: 0
`;

const suite = (execution = '') => `${execution}evalcases:
  - id: life
    input_messages: [{ role: user, content: "What is the answer to life?" }]
    evaluators: [{ name: says-42, type: contains, value: "42" }]
  - id: six-times-seven
    input_messages: [{ role: user, content: "What is six times seven?" }]
    evaluators: [{ name: says-42, type: contains, value: "42" }]
`;

async function setup(evalFile = suite()): Promise<Project> {
  project = await createProject({
    'agent.mjs': AGENT,
    '.agentv/targets.yaml': TARGETS,
    'evals/suite.yaml': evalFile,
  });
  return project;
}

async function resultLines(dir: Project, file = 'out.jsonl') {
  return parseJsonl(await readFile(dir.file(file), 'utf8'));
}

async function calls(dir: Project): Promise<string[]> {
  const text = await readFile(dir.file('calls.log'), 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '');
}

/** The data the HTML report embeds for its script. */
// biome-ignore lint/suspicious/noExplicitAny: the report's data has a known shape
function reportData(html: string): Record<string, any> {
  const match = /<script type="application\/json" id="agentv-data">([\s\S]*?)<\/script>/.exec(html);
  if (!match) throw new Error('no embedded report data');
  return JSON.parse(match[1]!);
}

describe('agentv eval --target a --target b', () => {
  it('runs every case against both targets and compares them in the summary, JUnit and HTML', async () => {
    const dir = await setup();
    const run = await runAgentv(
      [
        'eval',
        'evals/suite.yaml',
        '--target',
        'good',
        '--target=bad',
        '--out',
        'out.jsonl',
        '--junit',
        'junit.xml',
        '--html',
        'report.html',
        '--workers',
        '1',
      ],
      dir.dir,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);

    const lines = await resultLines(dir);
    expect(lines.map((line) => `${line.target} ${line.eval_id} ${line.score}`).sort()).toEqual([
      'bad life 0',
      'bad six-times-seven 0',
      'good life 1',
      'good six-times-seven 1',
    ]);
    expect((await calls(dir)).map((line) => line.split(' ')[0]).sort()).toEqual([
      'bad',
      'bad',
      'good',
      'good',
    ]);

    // Progress lines name the target of each finished case.
    expect(run.stdout).toMatch(/ life \[good\] /);
    expect(run.stdout).toMatch(/ six-times-seven \[bad\] /);
    const summary = run.stdout.slice(run.stdout.indexOf('4 cases:'));
    expect(summary).toContain('4 cases: 2 passed, 2 failed, 0 errored');
    const table = summary.slice(summary.indexOf('Targets:\n')).split('\n').slice(1, 4);
    expect(table[0]).toBe(
      '  target  cases  passed  failed  errored  pass rate   mean  tokens in  tokens out     cost  duration',
    );
    const cells = (line: string) => line.trim().split(/\s+/);
    // Targets are listed by name, so every run orders them the same way.
    expect(cells(table[1]!).slice(0, 10)).toEqual([
      'bad',
      '2',
      '0',
      '2',
      '0',
      '0.0%',
      '0.000',
      '100',
      '10',
      '-',
    ]);
    expect(cells(table[2]!).slice(0, 10)).toEqual([
      'good',
      '2',
      '2',
      '0',
      '0',
      '100.0%',
      '1.000',
      '200',
      '20',
      '$0.0040',
    ]);
    expect(cells(table[2]!)[10]).toMatch(/^\d+\.\ds$/);
    // Every column lines up: the rows are as long as the header.
    expect(table.map((line) => line.length)).toEqual([
      table[0]!.length,
      table[0]!.length,
      table[0]!.length,
    ]);

    const junit = parseXml(await readFile(dir.file('junit.xml'), 'utf8'));
    expect(junit.attributes).toMatchObject({ tests: '4', failures: '2', errors: '0' });
    const suites = elementsNamed(junit, 'testsuite');
    expect(
      suites.map((element) => [
        element.attributes.name,
        element.attributes.tests,
        element.attributes.failures,
        elementsNamed(element, 'property')[0]?.attributes.value,
      ]),
    ).toEqual([
      ['suite [good]', '2', '0', 'good'],
      ['suite [bad]', '2', '2', 'bad'],
    ]);
    expect(
      elementsNamed(junit, 'testcase')
        .map((testcase) => `${testcase.attributes.classname} ${testcase.attributes.name}`)
        .sort(),
    ).toEqual([
      'suite.bad life',
      'suite.bad six-times-seven',
      'suite.good life',
      'suite.good six-times-seven',
    ]);

    const data = reportData(await readFile(dir.file('report.html'), 'utf8'));
    expect(
      data.statistics.targets.map(
        // biome-ignore lint/suspicious/noExplicitAny: see reportData
        (target: any) => [
          target.target,
          target.total,
          target.passRate,
          target.mean,
          target.costUsd,
        ],
      ),
    ).toEqual([
      ['bad', 2, 0, 0, null],
      ['good', 2, 1, 1, 0.004],
    ]);
    // biome-ignore lint/suspicious/noExplicitAny: see reportData
    expect(data.cases.map((item: any) => `${item.target} ${item.id}`).sort()).toEqual([
      'bad life',
      'bad six-times-seven',
      'good life',
      'good six-times-seven',
    ]);
  });

  it('names each target in the --dump-traces file names', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': TARGETS,
      'evals/answers.yaml': suite(),
    });
    const run = await runAgentv(
      ['eval', 'evals/answers.yaml', '--target', 'good', '--target', 'bad', '--dump-traces'],
      project.dir,
    );
    expect(run.code).toBe(1);
    const files = (await readdir(project.file('.agentv/traces'))).sort();
    expect(files).toEqual([
      'life_bad_attempt-1.json',
      'life_good_attempt-1.json',
      'six-times-seven_bad_attempt-1.json',
      'six-times-seven_good_attempt-1.json',
    ]);
    const dump = JSON.parse(
      await readFile(project.file('.agentv/traces/life_bad_attempt-1.json'), 'utf8'),
    );
    expect(dump).toMatchObject({ eval_id: 'life', target: 'bad' });
  });

  it('takes execution.targets from the eval file; --target wins over it', async () => {
    const dir = await setup(suite('execution:\n  targets: [good, bad]\n'));
    const both = await runAgentv(['eval', 'evals/suite.yaml', '--out', 'both.jsonl'], dir.dir);
    expect(both.code).toBe(1);
    expect((await resultLines(dir, 'both.jsonl')).map((line) => line.target).sort()).toEqual([
      'bad',
      'bad',
      'good',
      'good',
    ]);
    expect(both.stdout).toContain('Targets:');

    const one = await runAgentv(
      ['eval', 'evals/suite.yaml', '--target', 'good', '--out', 'one.jsonl'],
      dir.dir,
    );
    expect(one.code).toBe(0);
    expect((await resultLines(dir, 'one.jsonl')).map((line) => line.target)).toEqual([
      'good',
      'good',
    ]);
    // One target: the summary is the one it always was, with no comparison table.
    expect(one.stdout).toContain('2 cases: 2 passed, 0 failed, 0 errored');
    expect(one.stdout).not.toContain('Targets:');
  });

  it('names an unknown target among several and runs nothing', async () => {
    const dir = await setup();
    const run = await runAgentv(
      ['eval', 'evals/suite.yaml', '--target', 'good', '--target', 'ugly'],
      dir.dir,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--target: unknown target "ugly"');
    expect(run.stderr).toContain('good, bad');
    expect(await calls(dir)).toEqual([]);
  });

  it('refuses execution.target and execution.targets together, naming the line', async () => {
    const dir = await setup(suite('execution:\n  target: good\n  targets: [good, bad]\n'));
    const run = await runAgentv(['eval', 'evals/suite.yaml'], dir.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('evals/suite.yaml:3');
    expect(run.stderr).toContain('sets both execution.target and execution.targets');
  });

  it('keeps (eval file, case id, target) apart in shards, --resume and results merge', async () => {
    const dir = await setup();
    const targets = ['--target', 'good', '--target', 'bad'];
    for (const shard of ['1/2', '2/2']) {
      const part = await runAgentv(
        [
          'eval',
          'evals/suite.yaml',
          ...targets,
          '--shard',
          shard,
          '--out',
          `part-${shard[0]}.jsonl`,
        ],
        dir.dir,
      );
      expect(part.code).not.toBe(2);
    }
    const parts = [
      ...(await resultLines(dir, 'part-1.jsonl')),
      ...(await resultLines(dir, 'part-2.jsonl')),
    ];
    expect(parts.map((line) => `${line.target} ${line.eval_id}`).sort()).toEqual([
      'bad life',
      'bad six-times-seven',
      'good life',
      'good six-times-seven',
    ]);
    // Every line of both shards carries the same run id, one over the four (case, target) keys.
    expect(new Set(parts.map((line) => line.run.id)).size).toBe(1);
    expect(parts.map((line) => line.run.cases)).toEqual([4, 4, 4, 4]);
    const merge = await runAgentv(
      ['results', 'merge', 'part-1.jsonl', 'part-2.jsonl', '--out', 'merged.jsonl'],
      dir.dir,
    );
    expect(merge.code).not.toBe(2);
    expect((await resultLines(dir, 'merged.jsonl')).length).toBe(4);

    // --resume runs only the (case, target) pair missing from the file.
    const full = await runAgentv(
      ['eval', 'evals/suite.yaml', ...targets, '--out', 'full.jsonl', '--workers', '1'],
      dir.dir,
    );
    expect(full.code).toBe(1);
    const kept = (await readFile(dir.file('full.jsonl'), 'utf8'))
      .split('\n')
      .filter((line) => line !== '' && !(line.includes('"bad"') && line.includes('"life"')));
    expect(kept).toHaveLength(3);
    await writeFile(dir.file('full.jsonl'), `${kept.join('\n')}\n`);
    const before = (await calls(dir)).length;
    const resumed = await runAgentv(
      ['eval', 'evals/suite.yaml', ...targets, '--resume', 'full.jsonl'],
      dir.dir,
    );
    expect(resumed.code).toBe(1);
    expect((await calls(dir)).slice(before)).toEqual(['bad What is the answer to life?']);
    expect(
      (await resultLines(dir, 'full.jsonl')).map((line) => `${line.target} ${line.eval_id}`).sort(),
    ).toEqual(['bad life', 'bad six-times-seven', 'good life', 'good six-times-seven']);
  });
});

describe.skipIf(!chromiumAvailable())('the HTML report of several targets in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('shows a comparison table at the top and filters the cases by target', async () => {
    const dir = await setup();
    const run = await runAgentv(
      ['eval', 'evals/suite.yaml', '--target', 'good', '--target', 'bad', '--html', 'report.html'],
      dir.dir,
    );
    expect(run.code).toBe(1);
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(pathToFileURL(dir.file('report.html')).href);

    const rows = page.locator('[data-testid=targets] tbody tr');
    expect(await rows.count()).toBe(2);
    const cells = async (index: number) =>
      (await rows.nth(index).locator('td').allTextContents()).slice(0, 10);
    expect(await cells(0)).toEqual(['bad', '2', '0', '2', '0', '0.0%', '0.000', '100', '10', '-']);
    expect(await cells(1)).toEqual([
      'good',
      '2',
      '2',
      '0',
      '0',
      '100.0%',
      '1.000',
      '200',
      '20',
      '$0.0040',
    ]);

    expect(await page.locator('tr.case-row').count()).toBe(4);
    await page.evaluate(`(() => {
      const select = document.querySelector('[data-testid=target-filter]');
      select.value = 'bad';
      select.dispatchEvent(new Event('input'));
    })()`);
    const shown = page.locator('tr.case-row td:nth-child(4)');
    expect(await shown.allTextContents()).toEqual(['bad', 'bad']);
    expect(problems).toEqual([]);
  });
});
