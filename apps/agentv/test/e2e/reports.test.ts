import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import yaml from 'yaml';
import {
  elementsNamed,
  parseXml,
} from '../../../../packages/results/src/test-support/parse-xml.js';
import { type Browser, chromiumAvailable, launchChromium } from '../support/chromium.js';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';
import { runInTerminal } from '../support/run-in-terminal.js';
import { terminalScreen } from '../support/terminal-screen.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

/**
 * Echoes its prompt with a trace (search, then lookupOrder). Prompts with
 * `crash` exit 3; prompts with `slow` take 400 ms.
 */
const AGENT = `
import { writeFileSync } from 'node:fs';
const args = process.argv.slice(2);
const prompt = args[args.indexOf('--prompt') + 1];
const out = args[args.indexOf('--out') + 1];
if (prompt.includes('slow')) await new Promise((resolve) => setTimeout(resolve, 400));
if (prompt.includes('crash')) { console.error('agent: cannot handle crash requests'); process.exit(3); }
const start = Date.now();
writeFileSync(out, JSON.stringify({
  text: 'You said: ' + prompt,
  trace: [
    { type: 'tool_call', timestamp: new Date(start).toISOString(), name: 'search', input: { q: prompt } },
    { type: 'tool_result', timestamp: new Date(start + 250).toISOString(), name: 'search', output: 'found order 42' },
    { type: 'tool_call', timestamp: new Date(start + 500).toISOString(), name: 'lookupOrder', input: { id: 42 } },
  ],
}));
`;

const TARGETS = `
targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs --prompt {PROMPT} --out {OUTPUT_FILE}
    max_retries: 0
`;

function evalFile(cases: [id: string, prompt: string, expected: string][]): string {
  return `evalcases:
${cases
  .map(
    ([id, prompt, expected]) => `  - id: ${JSON.stringify(id)}
    input_messages: [{ role: user, content: ${JSON.stringify(prompt)} }]
    evaluators: [{ name: echoed, type: contains, value: ${JSON.stringify(expected)} }]
`,
  )
  .join('')}`;
}

async function setup(files: Record<string, string>): Promise<Project> {
  project = await createProject({ 'agent.mjs': AGENT, '.agentv/targets.yaml': TARGETS, ...files });
  return project;
}

describe('agentv eval --output-format yaml', () => {
  it('writes one YAML document per result with multiline answers as blocks, to a .yaml file by default', async () => {
    const dir = await setup({
      'evals/echo.yaml': evalFile([
        ['multi', 'first line\nsecond line', 'second line'],
        ['bad', 'hi', 'goodbye'],
      ]),
    });
    const run = await runAgentv(['eval', 'evals/echo.yaml', '--output-format', 'yaml'], dir.dir);
    expect(run.code).toBe(1);
    const [file, ...others] = await readdir(dir.file('.agentv/results'));
    expect(others).toEqual([]);
    expect(file).toMatch(/^eval_.*\.yaml$/);
    expect(run.stdout).toContain(`Results: ${path.join('.agentv', 'results', file!)}`);
    const text = await readFile(dir.file(`.agentv/results/${file}`), 'utf8');
    expect(text).toMatch(/candidate_answer: \|-?\n {2}You said: first line\n {2}second line\n/);
    const documents = yaml.parseAllDocuments(text);
    expect(documents.every((document) => document.errors.length === 0)).toBe(true);
    const records = documents.map((document) => document.toJS());
    expect(records.map((record) => record.eval_id).sort()).toEqual(['bad', 'multi']);
    const multi = records.find((record) => record.eval_id === 'multi')!;
    expect(multi).toMatchObject({
      passed: true,
      candidate_answer: 'You said: first line\nsecond line',
      trace_summary: { toolNames: ['lookupOrder', 'search'], toolCallsByName: { search: 1 } },
    });
    expect(multi).not.toHaveProperty('trace');
  });

  it('takes the format from --out when it ends in .yml, and rejects an unknown format', async () => {
    const dir = await setup({ 'evals/echo.yaml': evalFile([['one', 'hi', 'hi']]) });
    const run = await runAgentv(['eval', 'evals/echo.yaml', '--out', 'r/out.yml'], dir.dir);
    expect(run.code).toBe(0);
    const [document] = yaml.parseAllDocuments(await readFile(dir.file('r/out.yml'), 'utf8'));
    expect(document?.toJS()).toMatchObject({ eval_id: 'one', passed: true });

    const bad = await runAgentv(['eval', 'evals/echo.yaml', '--output-format', 'xml'], dir.dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--output-format must be jsonl or yaml, got "xml"');
    expect(bad.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('agentv eval --junit', () => {
  it('writes a testsuite per eval file with <failure> for failed and <error> for errored cases', async () => {
    const dir = await setup({
      'evals/support.yaml': evalFile([
        ['refund-001', 'refund', 'refund'],
        ['refund-002', 'refund <b>&"</b>', 'amount'],
        ['refund-003', 'crash now', 'x'],
      ]),
      'evals/billing.yaml': evalFile([['invoice-001', 'invoice', 'invoice']]),
    });
    const run = await runAgentv(['eval', 'evals', '--junit', 'reports/junit.xml'], dir.dir);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(`JUnit: ${path.join('reports', 'junit.xml')}`);
    const root = parseXml(await readFile(dir.file('reports/junit.xml'), 'utf8'));
    expect(root.attributes).toMatchObject({ tests: '4', failures: '1', errors: '1' });
    const suites = elementsNamed(root, 'testsuite');
    expect(
      suites.map((suite) => [
        suite.attributes.name,
        suite.attributes.tests,
        suite.attributes.failures,
        suite.attributes.errors,
      ]),
    ).toEqual(
      expect.arrayContaining([
        ['support', '3', '1', '1'],
        ['billing', '1', '0', '0'],
      ]),
    );
    expect(suites).toHaveLength(2);
    const cases = elementsNamed(root, 'testcase');
    const named = (id: string) => cases.find((testcase) => testcase.attributes.name === id)!;
    expect(elementsNamed(named('refund-002'), 'failure')[0]?.attributes.message).toBe(
      'Answer does not contain "amount"',
    );
    expect(elementsNamed(named('refund-002'), 'system-out')[0]?.text).toBe(
      'You said: refund <b>&"</b>',
    );
    expect(elementsNamed(named('refund-003'), 'error')[0]?.attributes.message).toContain(
      'exited with code 3',
    );
    expect(elementsNamed(named('refund-001'), 'failure')).toEqual([]);
    expect(named('invoice-001').attributes.classname).toBe('billing');
  });
});

describe('agentv eval --dump-prompts', () => {
  const files = {
    'evals/guides/tone.instructions.md': 'Be brief.',
    'evals/fixtures/order-42.json': '{"id": 42}',
    'evals/refunds.yaml': `
evalcases:
  - id: refund-001
    input_messages:
      - role: system
        content:
          - { type: text, value: You are a support agent. }
          - { type: file, value: ./guides/tone.instructions.md }
      - role: user
        content:
          - { type: text, value: Please refund this order. }
          - { type: file, value: ./fixtures/order-42.json }
    evaluators: [{ name: echoed, type: contains, value: refund }]
`,
  };

  it('writes the exact prompt payload per case to .agentv/prompts/ by default', async () => {
    const dir = await setup(files);
    const run = await runAgentv(['eval', '--dump-prompts', 'evals/refunds.yaml'], dir.dir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Prompts: ${path.join('.agentv', 'prompts')}${path.sep} (1 file)`);
    const dump = JSON.parse(await readFile(dir.file('.agentv/prompts/refund-001.json'), 'utf8'));
    expect(dump).toMatchObject({
      eval_id: 'refund-001',
      dataset: 'refunds',
      target: 'default',
      guideline_files: [dir.file('evals/guides/tone.instructions.md')],
      input_files: [dir.file('evals/fixtures/order-42.json')],
    });
    expect(dump.question).toContain('Please refund this order.');
    expect(dump.question).toContain('<file path="./fixtures/order-42.json">');
    expect(dump.question).toContain('{"id": 42}');
    expect(dump.question).not.toContain('Be brief.');
    expect(dump.guidelines).toContain('Be brief.');
    expect(dump.chat_prompt[0]).toMatchObject({ role: 'system' });
    expect(dump.chat_prompt[0].content).toContain('Be brief.');
    // The agent received exactly the dumped question.
    const [result] = parseJsonl(
      await readFile(
        dir.file(`.agentv/results/${(await readdir(dir.file('.agentv/results')))[0]}`),
        'utf8',
      ),
    );
    expect(result?.candidate_answer).toBe(`You said: ${dump.question}`);
  });

  it('takes a folder as --dump-prompts DIR or --dump-prompts=DIR', async () => {
    const dir = await setup(files);
    const spaced = await runAgentv(
      ['eval', 'evals/refunds.yaml', '--dump-prompts', 'out/prompts', '--out', 'a.jsonl'],
      dir.dir,
    );
    expect(spaced.code).toBe(0);
    expect(await readdir(dir.file('out/prompts'))).toEqual(['refund-001.json']);
    const joined = await runAgentv(
      ['eval', '--dump-prompts=other', 'evals/refunds.yaml', '--out', 'b.jsonl'],
      dir.dir,
    );
    expect(joined.code).toBe(0);
    expect(await readdir(dir.file('other'))).toEqual(['refund-001.json']);
    // A second run into an existing dump folder still takes it as the folder.
    const again = await runAgentv(
      ['eval', 'evals/refunds.yaml', '--dump-prompts', 'out/prompts', '--out', 'c.jsonl'],
      dir.dir,
    );
    expect(again.code).toBe(0);
    await expect(readdir(dir.file('.agentv/prompts'))).rejects.toThrow();
  });
});

describe('agentv eval summary', () => {
  it('prints counts, statistics, histogram bins with boundary scores in the right bin, errors first', async () => {
    // A case with five equal evaluators of which k pass scores exactly k/5.
    const fiveChecks = (id: string, passing: number) => `  - id: ${id}
    input_messages: [{ role: user, content: "a b c d e" }]
    evaluators:
${['a', 'b', 'c', 'd', 'e']
  .map(
    (word, index) =>
      `      - { name: c${index}, type: contains, value: "${index < passing ? word : 'zzz'}" }`,
  )
  .join('\n')}
`;
    const dir = await setup({
      'evals/scores.yaml': `evalcases:
${[0, 1, 2, 3, 4, 5].map((passing) => fiveChecks(`score-${passing}`, passing)).join('')}  - id: broken
    input_messages: [{ role: user, content: crash }]
    evaluators: [{ name: c, type: contains, value: x }]
`,
    });
    const run = await runAgentv(['eval', 'evals/scores.yaml'], dir.dir);
    expect(run.code).toBe(2);
    const summary = run.stdout.slice(run.stdout.indexOf('\n7 cases'));
    expect(summary).toContain('7 cases: 1 passed, 5 failed, 1 errored');
    expect(summary).toContain(
      'Scores (6 graded, 1 errored excluded): mean 0.500  median 0.500  min 0.000  max 1.000  std 0.342',
    );
    const bins = summary
      .split('\n')
      .filter((line) => /^ {2}\[\d\.\d, \d\.\d[)\]]/.test(line))
      .map((line) => [line.slice(2, 12), Number(line.trim().split(/\s+/).pop())]);
    expect(bins).toEqual([
      ['[0.0, 0.2)', 1],
      ['[0.2, 0.4)', 1],
      ['[0.4, 0.6)', 1],
      ['[0.6, 0.8)', 1],
      ['[0.8, 1.0]', 2],
    ]);
    const lowest = summary.slice(summary.indexOf('Lowest-scoring cases:')).split('\n').slice(1);
    expect(lowest[0]).toMatch(/^ {2}ERROR {2}broken \(default\): command exited with code 3/);
    expect(lowest[1]).toMatch(/^ {2}FAIL {3}score-0 \(default\) 0\.000/);
    expect(lowest[2]).toMatch(/^ {2}FAIL {3}score-1 \(default\) 0\.200/);
  });
});

describe('agentv eval progress', () => {
  const cases = evalFile([
    ['slow-1', 'slow one', 'one'],
    ['slow-2', 'slow two', 'two'],
    ['slow-3', 'slow three', 'nope'],
    ['slow-4', 'slow crash', 'x'],
  ]);

  it('redraws a live status in place on a terminal and leaves only results and the summary', async () => {
    const dir = await setup({ 'evals/slow.yaml': cases });
    const run = await runInTerminal(['eval', 'evals/slow.yaml', '--workers', '2'], dir.dir, {
      env: { NO_COLOR: '1' },
    });
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('\u001b[2K');
    expect(run.stdout).toContain('\u001b[1A');
    expect(run.stdout).toMatch(/\[0\/4\] 0 passed, 0 failed, 0 errored {2}0:00/);
    expect(run.stdout).toMatch(/running: slow-1, slow-2/);
    expect(run.stdout).toMatch(/\[2\/4\] \d passed, \d failed, 0 errored/);

    const screen = terminalScreen(run.stdout).filter((line) => line !== '');
    expect(
      screen.filter((line) =>
        /running:|\d+ passed, \d+ failed, \d+ errored {2}\d+:\d\d/.test(line),
      ),
    ).toEqual([]);
    const resultLines = screen.filter((line) => /^\[\d\/4\] (PASS|FAIL|ERROR)/.test(line));
    expect(resultLines.map((line) => line.slice(0, 5))).toEqual([
      '[1/4]',
      '[2/4]',
      '[3/4]',
      '[4/4]',
    ]);
    expect(resultLines.map((line) => line.split(/\s+/)[2]).sort()).toEqual([
      'slow-1',
      'slow-2',
      'slow-3',
      'slow-4',
    ]);
    expect(screen).toContain('4 cases: 2 passed, 1 failed, 1 errored');
    expect(screen.at(-1)).toMatch(/^Results: /);
  });

  it('prints plain lines without escape sequences when CI is set, even on a terminal', async () => {
    const dir = await setup({ 'evals/slow.yaml': cases });
    const run = await runInTerminal(['eval', 'evals/slow.yaml', '--workers', '2'], dir.dir, {
      env: { NO_COLOR: '1', CI: '1' },
    });
    expect(run.code).toBe(2);
    expect(run.stdout).not.toContain('\u001b');
    expect(run.stdout).not.toContain('running:');
    const lines = run.stdout.split(/\r?\n/).filter((line) => /^\[\d\/4\]/.test(line));
    expect(lines).toHaveLength(4);
    expect(run.stdout).toContain('4 cases: 2 passed, 1 failed, 1 errored');
  });
});

describe.skipIf(!chromiumAvailable())('agentv eval --html in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });

  const hostile = `</script><script>window.pwned = 1</script><img src="x.png" onerror="window.pwned = 2">`;

  it('renders the summary, filters to failures and shows a failing case trace, offline and without errors', async () => {
    const dir = await setup({
      'evals/support.yaml': evalFile([
        ['refund-001', 'refund please', 'refund'],
        ['refund-002', `refund ${hostile}`, 'the amount'],
        ['refund-003', 'crash', 'x'],
      ]),
    });
    const run = await runAgentv(
      ['eval', 'evals/support.yaml', '--html', 'reports/run.html', '--junit', 'reports/junit.xml'],
      dir.dir,
    );
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(`HTML report: ${path.join('reports', 'run.html')}`);
    const pageUrl = pathToFileURL(dir.file('reports/run.html')).href;

    const page = await browser.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => requests.push(request.url()));
    page.on('dialog', async (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      await dialog.dismiss();
    });
    await page.goto(pageUrl);

    expect(await page.locator('[data-testid=totals]').textContent()).toBe(
      '3 cases: 1 passed, 1 failed, 1 errored',
    );
    expect(await page.locator('[data-testid=histogram] .bin .count').allTextContents()).toEqual([
      '1',
      '0',
      '0',
      '0',
      '1',
    ]);
    expect(await page.locator('tr.case-row').count()).toBe(3);

    await page.locator('button[data-filter=failed]').click();
    expect(await page.locator('button[data-filter=failed]').getAttribute('aria-pressed')).toBe(
      'true',
    );
    const rows = page.locator('tr.case-row');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().getAttribute('data-case')).toBe('refund-002');

    await rows.first().click();
    const timeline = page.locator('[data-testid=timeline]');
    await timeline.waitFor({ state: 'visible' });
    expect(await timeline.locator('li').count()).toBe(3);
    expect(await timeline.locator('li .name').allTextContents()).toEqual([
      'search',
      'search',
      'lookupOrder',
    ]);
    expect(await timeline.locator('li .offset').allTextContents()).toEqual([
      '+0.000 s',
      '+0.250 s',
      '+0.500 s',
    ]);
    expect(await page.locator('[data-testid=trace-summary]').textContent()).toContain(
      'tools: lookupOrder ×1, search ×1',
    );
    expect(await page.locator('[data-testid=answer]').textContent()).toBe(
      `You said: refund ${hostile}`,
    );
    expect(await page.locator('[data-testid=evaluators]').textContent()).toContain(
      'Answer does not contain "the amount"',
    );

    await page.locator('button[data-filter=errored]').click();
    expect(await rows.count()).toBe(1);
    await rows.first().click();
    expect(await page.locator('[data-testid=error]').textContent()).toContain('exited with code 3');

    expect(await page.evaluate('typeof window.pwned')).toBe('undefined');
    expect(problems).toEqual([]);
    expect(requests.filter((url) => url !== pageUrl && !url.startsWith('data:'))).toEqual([]);

    // The JUnit file parsed by the browser's own XML parser.
    const junit = await readFile(dir.file('reports/junit.xml'), 'utf8');
    const counts = await page.evaluate<Record<string, unknown>>(`(() => {
      const document = new DOMParser().parseFromString(${JSON.stringify(junit)}, 'application/xml');
      const error = document.querySelector('parsererror');
      if (error) return { error: error.textContent };
      return {
        tests: document.querySelector('testsuite').getAttribute('tests'),
        failures: document.querySelectorAll('testcase > failure').length,
        errors: document.querySelectorAll('testcase > error').length,
        testcases: document.querySelectorAll('testcase').length,
      };
    })()`);
    expect(counts).toEqual({ tests: '3', failures: 1, errors: 1, testcases: 3 });
  });
});
