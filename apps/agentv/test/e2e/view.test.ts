import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Browser,
  type BrowserPage,
  chromiumAvailable,
  launchChromium,
} from '../support/chromium.js';
import { BIN, createProject, type Project, runAgentv } from '../support/project.js';
import { agentCase, workspaceProject } from '../support/workspaces.js';

const HOSTILE = '</script><img src=x onerror="window.pwned=1"><b>bold</b>';
const HOSTILE_ID = `case <img src=x onerror="window.pwned=2">`;
const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

// Two mock targets (one answers right, one wrong) for two runs to compare, and a slow one for a
// run the viewer watches while it is written (2 s a case, so that a busy machine still shows it
// growing).
const MOCK_TARGETS = `  - name: good
    provider: mock
    response: "refund approved for order 42"
    trace:
      - { type: tool_call, timestamp: "2026-01-01T00:00:00.000Z", id: c1, name: lookup_order, input: { id: 42 } }
      - { type: tool_result, timestamp: "2026-01-01T00:00:01.250Z", id: c1, name: lookup_order, output: "order 42: paid" }
      - { type: model_step, timestamp: "2026-01-01T00:00:02.000Z", name: gpt, text: "deciding", metadata: { usage: { input_tokens: 120, output_tokens: 30 } } }
  - name: bad
    provider: mock
    response: ${JSON.stringify(HOSTILE)}
  - name: slow
    provider: mock
    response: "refund approved"
    delay_ms: 2000
`;

const REFUNDS = `evalcases:
  - id: refund-001
    input_messages: [{ role: user, content: refund please }]
    evaluators: [{ name: says-refund, type: contains, value: refund }]
  - id: refund-002
    input_messages: [{ role: user, content: refund order 42 }]
    evaluators: [{ name: says-43, type: contains, value: "order 43" }]
  - id: ${JSON.stringify(HOSTILE_ID)}
    input_messages: [{ role: user, content: hello }]
    evaluators: [{ name: says-refund, type: contains, value: refund }]
`;

const SLOW = `evalcases:
${Array.from(
  { length: 6 },
  (_, index) => `  - id: slow-${index}
    input_messages: [{ role: user, content: refund }]
    evaluators: [{ type: contains, value: refund }]
`,
).join('')}`;

const FIXED = `- { name: fixed, type: file, path: src/sum.js, contains: "a + b" }
- { name: changed, type: diff, must_change: [src/sum.js] }`;

/** Layout problems: the page scrolling sideways, and visible elements leaving the viewport. */
const LAYOUT_PROBLEMS = `(() => {
  const problems = [];
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth) {
    problems.push('page scrolls sideways: scrollWidth ' + root.scrollWidth + ' > ' + root.clientWidth);
  }
  const width = root.clientWidth;
  for (const element of document.querySelectorAll('#app *')) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    if (element.closest('.table-scroll') && !element.matches('.table-scroll')) continue;
    if (box.left < -0.5 || box.right > width + 0.5) {
      problems.push((element.className || element.tagName) + ' spans ' + Math.round(box.left) + '..' + Math.round(box.right) + ' of ' + width);
    }
  }
  return problems.slice(0, 10);
})()`;

/** Waits for `check` to hold, polling; generous, since the machine may be busy. */
async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}: ${String(last ?? '')}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

describe.skipIf(!chromiumAvailable())('agentv view in Chromium', () => {
  let project: Project;
  let browser: Browser;
  let viewer: ChildProcess;
  let url = '';
  let scratch = '';
  const shots = () => project.file('screenshots');

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'agentv-view-ws-'));
    project = await workspaceProject(
      {
        'evals/refunds.yaml': REFUNDS,
        'evals/slow.yaml': SLOW,
        'evals/fix.yaml': `workspace: { template: ./app }
evalcases:
${agentCase('fix-sum', 'hostile', FIXED)}`,
      },
      MOCK_TARGETS,
    );
    const results = (name: string) => path.join('.agentv', 'results', name);
    for (const [name, args] of [
      ['run-1-good.jsonl', ['evals/refunds.yaml', '--target', 'good', '--include-trace']],
      ['run-2-bad.jsonl', ['evals/refunds.yaml', '--target', 'bad', '--include-trace']],
      ['run-3-fix.jsonl', ['evals/fix.yaml', '--workspace-root', scratch, '--keep-workspaces']],
    ] as const) {
      const run = await runAgentv(['eval', ...args, '--out', results(name)], project.dir);
      expect(run.stderr).not.toMatch(/error:/i);
    }
    viewer = spawn(process.execPath, [BIN, 'view', '--no-open'], {
      cwd: project.dir,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    viewer.stdout!.on('data', (chunk) => {
      printed += chunk;
    });
    url = await eventually(
      async () => /AgentV viewer: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(printed)?.[1],
      'the URL agentv view prints',
    );
    browser = await launchChromium();
    await mkdir(shots(), { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    viewer?.kill('SIGINT');
    await project?.cleanup();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  async function open(hash: string, viewport: keyof typeof VIEWPORTS = 'desktop') {
    const page = await browser.newPage({ viewport: VIEWPORTS[viewport] });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('dialog', (dialog) => {
      errors.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await page.goto(`${url}${hash}`);
    return { page, errors };
  }

  async function expectLayout(page: BrowserPage, shot: string): Promise<void> {
    expect(await page.evaluate<string[]>(LAYOUT_PROBLEMS), shot).toEqual([]);
    await page.screenshot({ path: path.join(shots(), `${shot}.png`), fullPage: true });
  }

  it('lists the runs, opens one, filters and sorts its cases, and opens a case', async () => {
    const { page, errors } = await open('');
    await page.locator('tr.run-row').first().waitFor();
    expect(await page.locator('tr.run-row').count()).toBe(3);
    await page.locator('tr.run-row[data-run$="run-1-good.jsonl"] a').click();
    await page.locator('a.case-row').first().waitFor();
    expect(await page.locator('[data-testid=case-count]').textContent()).toBe('3 of 3 cases');
    expect(await page.locator('[data-testid=metrics]').textContent()).toContain('contains');

    await page.locator('button[data-filter=failed]').click();
    await eventually(
      async () => (await page.locator('[data-testid=case-count]').textContent()) === '1 of 3 cases',
      'the verdict filter',
    );
    await page.locator('button[data-filter=all]').click();
    await page.locator('input[type=search]').fill('refund-002');
    await eventually(
      async () => (await page.locator('a.case-row').count()) === 1,
      'the text filter',
    );
    await page.locator('input[type=search]').fill('');
    await page.locator('button[data-sort=id]').click();
    await page.locator('button[data-sort=id]').click();
    const ids = await page.locator('a.case-row .c-id').allTextContents();
    expect(ids).toEqual([...ids].sort().reverse());

    await page.locator('a.case-row[data-case="refund-002"]').click();
    await page.locator('[data-testid=case-id]').waitFor();
    expect(await page.locator('[data-testid=case-id]').textContent()).toBe('refund-002');
    expect(await page.locator('[data-testid=answer]').textContent()).toBe(
      'refund approved for order 42',
    );
    expect(await page.locator('[data-testid=graders]').textContent()).toContain('says-43');
    const timeline = page.locator('[data-testid=timeline]');
    expect(await timeline.textContent()).toContain('lookup_order');
    expect(await timeline.textContent()).toContain('1.3 s');
    expect(await timeline.textContent()).toContain('input 120');
    await timeline.locator('details summary').first().click();
    expect(await timeline.textContent()).toContain('order 42: paid');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows a case’s workspace diff and kept workspace, and hostile text as text', async () => {
    const { page, errors } = await open('');
    await page.locator('tr.run-row[data-run$="run-3-fix.jsonl"] a').click();
    await page.locator('a.case-row').first().click();
    await page.locator('[data-testid=diff]').waitFor();
    const diff = await page.locator('[data-testid=diff]').textContent();
    expect(diff).toContain('+export const sum = (a, b) => a + b;');
    expect(diff).toContain('</script><script>window.pwned = 1</script>');
    expect(await page.locator('[data-testid=kept-at]').textContent()).toContain(scratch);
    expect(await page.locator('[data-testid=artifacts] a').count()).toBeGreaterThan(0);

    await page.goto(`${url}#/run?key=${encodeURIComponent('.agentv/results/run-2-bad.jsonl')}`);
    await page.locator(`a.case-row`).first().waitFor();
    expect(await page.locator('a.case-row .c-id').allTextContents()).toContain(HOSTILE_ID);
    await page.locator('a.case-row').first().click();
    await page.locator('[data-testid=answer]').waitFor();
    expect(await page.locator('[data-testid=answer]').textContent()).toBe(HOSTILE);
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    expect(await page.locator('#app img, #app b').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('compares two runs: regressions first, with the statistics of agentv compare', async () => {
    const { page, errors } = await open('');
    await page.locator('tr.run-row').first().waitFor();
    await page.locator('tr.run-row[data-run$="run-1-good.jsonl"] input').click();
    await page.locator('tr.run-row[data-run$="run-2-bad.jsonl"] input').click();
    await page.locator('[data-testid=compare-picked]').click();
    await page.locator('[data-testid=compare-cases]').waitFor();
    const changes = await page.locator('tr.compare-row td:first-child').allTextContents();
    expect(changes[0]).toBe('regressed');
    expect(changes.filter((change) => change === 'regressed')).toHaveLength(2);
    const statistics = await page.locator('[data-testid=compare-statistics]').textContent();
    expect(statistics).toContain('paired bootstrap, 10000 resamples, seed 1');
    expect(statistics).toMatch(/McNemar \(exact binomial\), b = 2, c = 0/);
    expect(statistics).toContain('p = 0.500');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('compares two targets of one run, picked on the compare page', async () => {
    const out = path.join('.agentv', 'results', 'run-5-two-targets.jsonl');
    const run = await runAgentv(
      ['eval', 'evals/refunds.yaml', '--target', 'good', '--target', 'bad', '--out', out],
      project.dir,
    );
    expect(run.code).toBe(1);
    const { page, errors } = await open(`#/run?key=${encodeURIComponent(out)}`);
    await page.locator('a.button[href^="#/compare"]').click();
    await page.locator('[data-testid=compare-cases]').waitFor();
    expect(await page.locator('[data-testid=compare-summary]').textContent()).toMatch(
      /^2Regressions0Fixes/,
    );
    // Swapping the sides from the pickers turns the regressions into fixes.
    await page.locator('[data-testid=compare-targets] select').first().click();
    await page.evaluate(`(() => {
      const [base, next] = document.querySelectorAll('[data-testid=compare-targets] select');
      base.value = 'bad';
      base.dispatchEvent(new Event('change', { bubbles: true }));
    })()`);
    await eventually(
      async () => (await page.evaluate<string>('location.hash')).includes('baseTarget=bad'),
      'the picked base target in the URL',
    );
    await page.evaluate(`(() => {
      const next = document.querySelectorAll('[data-testid=compare-targets] select')[1];
      next.value = 'good';
      next.dispatchEvent(new Event('change', { bubbles: true }));
    })()`);
    await eventually(
      async () =>
        /^0Regressions2Fixes/.test(
          (await page.locator('[data-testid=compare-summary]').textContent()) ?? '',
        ),
      'the swapped comparison',
    );
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows a run while agentv eval writes it, without a reload', async () => {
    const { page, errors } = await open('');
    await page.locator('tr.run-row').first().waitFor();
    await page.evaluate('window.notReloaded = true');
    const out = path.join('.agentv', 'results', 'run-4-live.jsonl');
    const running = runAgentv(
      ['eval', 'evals/slow.yaml', '--target', 'slow', '--workers', '1', '--out', out],
      project.dir,
    );
    await page.locator('tr.run-row[data-run$="run-4-live.jsonl"]').waitFor();
    await page.locator('tr.run-row[data-run$="run-4-live.jsonl"] a').click();
    const counts = new Set<string>();
    await eventually(
      async () => {
        counts.add((await page.locator('[data-testid=case-count]').textContent()) ?? '');
        return counts.has('6 of 6 cases');
      },
      'all six cases on the page',
      60_000,
    );
    // Seen growing, not only complete.
    expect(counts.size).toBeGreaterThan(1);
    expect((await running).code).toBe(0);
    expect(await page.evaluate('window.notReloaded')).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  for (const viewport of ['desktop', 'phone'] as const) {
    it(`${viewport}: history, run, case and compare pages fit the width`, async () => {
      const { page, errors } = await open('', viewport);
      await page.locator('tr.run-row').first().waitFor();
      await expectLayout(page, `history-${viewport}`);
      const run = encodeURIComponent('.agentv/results/run-2-bad.jsonl');
      await page.goto(`${url}#/run?key=${run}`);
      await page.locator('a.case-row').first().waitFor();
      expect(await page.locator('[data-testid=summary]').isVisible()).toBe(true);
      expect(await page.locator('input[type=search]').isVisible()).toBe(true);
      await expectLayout(page, `run-${viewport}`);
      await page.locator('a.case-row').first().click();
      await page.locator('[data-testid=answer]').waitFor();
      await expectLayout(page, `case-${viewport}`);
      const good = encodeURIComponent('.agentv/results/run-1-good.jsonl');
      await page.goto(`${url}#/compare?base=${good}&new=${run}`);
      await page.locator('[data-testid=compare-cases]').waitFor();
      await expectLayout(page, `compare-${viewport}`);
      expect(errors).toEqual([]);
      await page.close();
    });
  }

  it('--export writes the same app as static files that open from disk', async () => {
    const run = await runAgentv(['view', '--export', 'site'], project.dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Viewer exported: site \(\d+ run\(s\)/);
    const page = await browser.newPage({ viewport: VIEWPORTS.desktop });
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(pathToFileURL(project.file('site/index.html')).href);
    await page.locator('tr.run-row').first().waitFor();
    await page.locator('tr.run-row[data-run$="run-1-good.jsonl"] a').click();
    await page.locator('a.case-row[data-case="refund-002"]').click();
    await page.locator('[data-testid=answer]').waitFor();
    expect(await page.locator('[data-testid=answer]').textContent()).toBe(
      'refund approved for order 42',
    );
    expect(requests.filter((each) => !each.startsWith('file://'))).toEqual([]);
    expect(await readdir(project.file('site'))).toEqual(
      expect.arrayContaining(['index.html', 'app.js', 'app.css', 'data']),
    );
    await page.close();
  });
});

// Outside the browser's describe: it runs wherever the CLI does (also without Chromium).
describe('agentv view refusals', () => {
  it('refuses a missing folder and an unknown option with a hint', async () => {
    const project = await createProject({});
    try {
      const missing = await runAgentv(['view', 'nope', '--no-open'], project.dir);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('nope does not exist');
      const unknown = await runAgentv(['view', '--prot', '80'], project.dir);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('did you mean --port');
    } finally {
      await project.cleanup();
    }
  });
});
