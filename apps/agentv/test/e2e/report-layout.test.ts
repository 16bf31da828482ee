import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Browser,
  type BrowserPage,
  chromiumAvailable,
  launchChromium,
} from '../support/chromium.js';
import { createProject, type Project, runAgentv } from '../support/project.js';

const LONG_WORD = 'x'.repeat(4000);
const LONG_ID = `case-${'y'.repeat(300)}`;
const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

/** Targets answering at once: a normal answer, and one long unbroken answer with a long trace line. */
const TARGETS = `targets:
  - name: default
    provider: mock
    response: "You said: refund of order 42"
  - name: long
    provider: mock
    response: "${LONG_WORD}"
    trace:
      - { type: tool_call, timestamp: "2026-01-01T00:00:00.000Z", name: search, input: { q: "${LONG_WORD}" } }
      - { type: model_step, timestamp: "2026-01-01T00:00:01.000Z", text: "${LONG_WORD}" }
`;

const NORMAL = `evalcases:
  - id: refund-001
    input_messages: [{ role: user, content: refund please }]
    evaluators: [{ type: contains, value: refund }]
  - id: refund-002
    input_messages: [{ role: user, content: refund please }]
    evaluators: [{ type: contains, value: the amount }]
  - id: refund-003
    input_messages: [{ role: user, content: hello }]
    evaluators: [{ type: contains, value: order 42 }]
`;

const LONG = `execution: { target: long }
evalcases:
  - id: ${LONG_ID}
    input_messages: [{ role: user, content: long please }]
    evaluators: [{ type: contains, value: "not in the answer ${'z'.repeat(500)}" }]
  - id: short
    input_messages: [{ role: user, content: hello }]
    evaluators: [{ type: contains, value: x }]
`;

const MANY = `cases: ./many.jsonl
execution:
  evaluators: [{ type: contains, value: refund }]
`;
const MANY_CASES = Array.from(
  { length: 1000 },
  (_, index) =>
    `${JSON.stringify({
      id: `case-${String(index).padStart(4, '0')}`,
      input_messages: [{ role: 'user', content: `question ${index}` }],
    })}\n`,
).join('');

/**
 * Layout problems of the page as it is now: the page scrolling sideways, and
 * visible elements whose box leaves the viewport (outside a `.table-scroll`,
 * which may scroll on its own).
 */
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

/** The width of a PNG, from its IHDR chunk. */
function pngWidth(png: Buffer): number {
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  return png.readUInt32BE(16);
}

describe.skipIf(!chromiumAvailable())('the HTML report at desktop and phone widths', () => {
  let browser: Browser;
  let project: Project;
  const reports: Record<'normal' | 'long' | 'many', string> = { normal: '', long: '', many: '' };

  beforeAll(async () => {
    project = await createProject({
      'targets.yaml': TARGETS,
      'evals/normal.yaml': NORMAL,
      'evals/long.yaml': LONG,
      'evals/many.yaml': MANY,
      'evals/many.jsonl': MANY_CASES,
    });
    for (const name of ['normal', 'long', 'many'] as const) {
      const html = path.join('reports', `${name}.html`);
      const run = await runAgentv(['eval', `evals/${name}.yaml`, '--html', html], project.dir);
      expect(run.stdout).toContain(`HTML report: ${html}`);
      reports[name] = pathToFileURL(project.file(html)).href;
    }
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await project?.cleanup();
  });

  async function open(
    report: keyof typeof reports,
    viewport: keyof typeof VIEWPORTS,
  ): Promise<BrowserPage> {
    const page = await browser.newPage({ viewport: VIEWPORTS[viewport] });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(reports[report]);
    expect(errors).toEqual([]);
    return page;
  }

  /** Checks the layout, and that a full-page screenshot is exactly as wide as the viewport. */
  async function expectNoOverflow(page: BrowserPage, shot: string): Promise<void> {
    expect(await page.evaluate<string[]>(LAYOUT_PROBLEMS)).toEqual([]);
    const dir = project.file('screenshots');
    await mkdir(dir, { recursive: true });
    const png = await page.screenshot({ fullPage: true });
    await writeFile(path.join(dir, `${shot}.png`), png);
    const width = await page.evaluate<number>('window.innerWidth');
    expect(pngWidth(png)).toBe(width);
  }

  for (const viewport of ['desktop', 'phone'] as const) {
    it(`${viewport}: a normal report fits, with every case open`, async () => {
      const page = await open('normal', viewport);
      await expectNoOverflow(page, `normal-${viewport}`);
      const rows = page.locator('tr.case-row');
      expect(await rows.count()).toBe(3);
      for (let index = 0; index < 3; index++) await rows.nth(index).click();
      expect(await page.locator('tr.details:not([hidden])').count()).toBe(3);
      await expectNoOverflow(page, `normal-${viewport}-open`);
      await page.close();
    });

    it(`${viewport}: a long unbroken answer, id and trace wrap inside the page`, async () => {
      const page = await open('long', viewport);
      await expectNoOverflow(page, `long-${viewport}`);
      await page.locator(`tr.case-row[data-case="${LONG_ID}"]`).click();
      const answer = page.locator('[data-testid=answer]');
      await answer.waitFor({ state: 'visible' });
      expect(await answer.textContent()).toBe(LONG_WORD);
      // Wrapped, not scrolled: no sideways scrolling inside the answer, and many lines tall.
      const box = await page.evaluate<{ scroll: number; client: number; lines: number }>(`(() => {
        const pre = document.querySelector('[data-testid=answer]');
        const lineHeight = parseFloat(getComputedStyle(pre).lineHeight) || 16;
        return { scroll: pre.scrollWidth, client: pre.clientWidth, lines: pre.scrollHeight / lineHeight };
      })()`);
      expect(box.scroll).toBeLessThanOrEqual(box.client);
      expect(box.lines).toBeGreaterThan(10);
      await page.locator('[data-testid=timeline] details summary').first().click();
      await expectNoOverflow(page, `long-${viewport}-open`);
      await page.close();
    });
  }

  it('phone: the filters are visible, large enough to tap, and filter the cases', async () => {
    const page = await open('normal', 'phone');
    const controls = await page.evaluate<
      { name: string; left: number; right: number; height: number }[]
    >(
      `[...document.querySelectorAll('.toolbar button, .toolbar input')].map((element) => {
        const box = element.getBoundingClientRect();
        return { name: element.dataset.filter || element.type, left: box.left, right: box.right, height: box.height };
      })`,
    );
    expect(controls.map((control) => control.name)).toEqual([
      'all',
      'failed',
      'errored',
      'passed',
      'search',
    ]);
    for (const control of controls) {
      expect(control.left).toBeGreaterThanOrEqual(0);
      expect(control.right).toBeLessThanOrEqual(VIEWPORTS.phone.width);
      expect(control.height).toBeGreaterThanOrEqual(24);
    }
    await page.locator('button[data-filter=failed]').click();
    expect(await page.locator('tr.case-row').count()).toBe(1);
    await page.locator('button[data-filter=all]').click();
    await page.locator('.toolbar input').fill('003');
    expect(await page.locator('tr.case-row').allTextContents()).toHaveLength(1);
    expect(await page.locator('tr.case-row').first().getAttribute('data-case')).toBe('refund-003');
    await expectNoOverflow(page, 'normal-phone-filtered');
    await page.close();
  });

  for (const viewport of ['desktop', 'phone'] as const) {
    it(`${viewport}: a 1,000-case report filters with work in proportion to the rows shown`, async () => {
      const page = await open('many', viewport);
      expect(await page.locator('[data-testid=totals]').textContent()).toBe(
        '1000 cases: 1000 passed, 0 failed, 0 errored',
      );
      // Rows are shown a page at a time, never all 1,000 at once.
      expect(await page.locator('tr.case-row').count()).toBe(500);
      await expectNoOverflow(page, `many-${viewport}`);
      const typed = await page.evaluate<{
        created: number;
        rows: number[];
        added: number[];
        frameMs: number[];
      }>(`(async () => {
        const input = document.querySelector('.toolbar input');
        const tbody = document.querySelector('[data-testid=cases] tbody');
        let created = 0;
        const createElement = document.createElement.bind(document);
        document.createElement = (tag, options) => { created++; return createElement(tag, options); };
        let added = 0;
        const observer = new MutationObserver((records) => {
          for (const record of records) added += record.addedNodes.length;
        });
        observer.observe(tbody, { childList: true });
        const result = { rows: [], added: [], frameMs: [] };
        for (const text of ['c', 'ca', 'case-0', 'case-09', 'case-099', 'case-0999']) {
          added = 0;
          const start = performance.now();
          input.value = text;
          input.dispatchEvent(new Event('input', { bubbles: true }));
          // The next frame after the keystroke: the rows are updated and laid out by then.
          await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
          result.frameMs.push(performance.now() - start);
          observer.takeRecords().forEach((record) => { added += record.addedNodes.length; });
          result.rows.push(tbody.querySelectorAll('tr.case-row').length);
          result.added.push(added);
        }
        observer.disconnect();
        document.createElement = createElement;
        return { created, ...result };
      })()`);
      expect(typed.rows).toEqual([500, 500, 500, 100, 10, 1]);
      // Each keystroke puts in the rows shown (a case row and its hidden details row), no more.
      expect(typed.added).toEqual([1000, 1000, 1000, 200, 20, 2]);
      // Rows already built are reused: typing builds only rows never shown before (case-0500..0999 of "case-09").
      expect(typed.created).toBeLessThanOrEqual(100 * 15);
      // A very generous guard only; the budget itself is measured by pnpm bench, not here.
      expect(Math.max(...typed.frameMs)).toBeLessThan(5_000);
      await expectNoOverflow(page, `many-${viewport}-filtered`);
      await page.close();
    });
  }
});
