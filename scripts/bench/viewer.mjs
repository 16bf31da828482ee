// Issue 30: `agentv view` stays responsive on large runs, measured in headless Chromium (Debian's
// `chromium`, through playwright-core) against the built CLI:
//   a 100,000-case run: first table paint <= 1.5 s after the page opens; a filter or a sort
//   <= 150 ms; the page's JS heap <= 300 MB; the server's resident memory <= 250 MB;
//   a history of 200 runs loads <= 1 s.
// Every time is a median of ROUNDS page loads (or interactions), taken after one warm-up.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { AGENTV, middle, ROUNDS, report, tempProject } from './support.mjs';

const CASES = 100_000;
const HISTORY_RUNS = 200;
const CHROMIUM = process.env.AGENTV_CHROMIUM ?? '/usr/bin/chromium';
const require = createRequire(new URL('../../apps/agentv/package.json', import.meta.url));
const { chromium } = require('playwright-core');

if (!existsSync(CHROMIUM)) {
  console.log(`FAIL ${CHROMIUM} is missing: install Debian's chromium package`);
  process.exit(1);
}

/** One result line of a synthetic run: a mix of verdicts, two graders, tags, failure classes. */
function line(index, run = 0) {
  const verdict = index % 10 === 0 ? 'errored' : index % 3 === 0 ? 'failed' : 'passed';
  const score = verdict === 'passed' ? 1 : verdict === 'failed' ? (index % 7) / 10 : 0;
  const grader = (name, type) => ({
    name,
    type,
    score,
    weight: 1,
    verdict: verdict === 'passed' ? 'pass' : verdict === 'failed' ? 'fail' : 'error',
    hits: verdict === 'passed' ? ['mentions the refund'] : [],
    misses: verdict === 'passed' ? [] : ['does not state the amount'],
    reasoning: 'The answer was compared with the expected outcome.',
  });
  return `${JSON.stringify({
    timestamp: new Date(Date.UTC(2026, 0, 1 + run, 12, 0, index % 60)).toISOString(),
    eval_id: `case-${String(index).padStart(6, '0')}`,
    dataset: `suite-${index % 5}`,
    target: index % 2 === 0 ? 'gpt' : 'claude',
    score,
    passed: verdict === 'passed',
    hits: [],
    misses: [],
    reasoning: '',
    candidate_answer: `Your refund for order ${index} has been approved: $${index % 500}. `.repeat(
      3,
    ),
    evaluator_results: [grader('amount', 'regex'), grader('tone', 'llm_judge')],
    attempts: 1,
    duration_ms: 800 + (index % 900),
    cost_usd: 0.0012,
    ...(verdict === 'errored' ? { error: 'agent exited with code 3' } : {}),
    trace_summary: null,
    eval_file: `evals/suite-${index % 5}.yaml`,
    tags: [`area-${index % 4}`],
    ...(verdict === 'failed' ? { failure_class: index % 2 ? 'agent' : 'timeout' } : {}),
    run: { id: `run-${run}`, cases: CASES },
  })}\n`;
}

const big = tempProject({});
const history = tempProject({});
const bigFile = path.join(big.dir, '.agentv', 'results', 'big.jsonl');
mkdirSync(path.dirname(bigFile), { recursive: true });
writeFileSync(bigFile, '');
for (let start = 0; start < CASES; start += 5000) {
  let chunk = '';
  for (let index = start; index < start + 5000; index++) chunk += line(index);
  appendFileSync(bigFile, chunk);
}
const historyDir = path.join(history.dir, '.agentv', 'results');
mkdirSync(historyDir, { recursive: true });
for (let run = 0; run < HISTORY_RUNS; run++) {
  let text = '';
  for (let index = 0; index < 50; index++) text += line(index + run, run);
  writeFileSync(path.join(historyDir, `eval_${String(run).padStart(3, '0')}.jsonl`), text);
}

/** Starts `agentv view --no-open` in `cwd`; resolves its URL and process. */
function startViewer(cwd) {
  const child = spawn(process.execPath, [AGENTV, 'view', '--no-open'], {
    cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let printed = '';
    child.stdout.on('data', (chunk) => {
      printed += chunk;
      const url = /AgentV viewer: (\S+)/.exec(printed)?.[1];
      if (url) resolve({ url, child });
    });
    child.on('exit', (code) => reject(new Error(`agentv view exited with ${code}`)));
  });
}

/** Resident memory of a process, in MB (Linux). */
function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--enable-precise-memory-info'],
});
let ok = true;
const viewers = [];
try {
  const bigViewer = await startViewer(big.dir);
  viewers.push(bigViewer.child);
  const runUrl = `${bigViewer.url}#/run?key=${encodeURIComponent('.agentv/results/big.jsonl')}`;

  // First paint of the table: from navigation to the first case row, a fresh page each round.
  const paints = [];
  let page;
  for (let round = 0; round <= ROUNDS; round++) {
    await page?.close();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const started = performance.now();
    await page.goto(runUrl);
    await page.locator('a.case-row').first().waitFor({ timeout: 60_000 });
    if (round > 0) paints.push(performance.now() - started);
  }
  const rowsShown = await page.locator('a.case-row').count();
  const counted = await page.locator('[data-testid=case-count]').textContent();
  if (counted !== `${CASES} of ${CASES} cases` || rowsShown > 200) {
    throw new Error(`the run page shows "${counted}" with ${rowsShown} rows rendered`);
  }
  const paint = middle(paints);
  ok =
    report(
      'viewer: 100,000-case run, first table paint',
      paint.toFixed(0),
      'ms',
      '<= 1500 ms',
      paint <= 1500,
    ) && ok;

  /** Times an action in the page until the case count or the sort state shows it. */
  const interaction = (action) =>
    page.evaluate(`(async () => {
      const count = () => document.querySelector('[data-testid=case-count]').textContent;
      const sorted = () => [...document.querySelectorAll('button[data-sort]')].map((b) => b.getAttribute('aria-pressed') + b.textContent).join();
      const before = count() + sorted();
      const started = performance.now();
      ${action}
      await new Promise((resolve) => {
        const check = () => (count() + sorted() !== before ? resolve() : requestAnimationFrame(check));
        check();
      });
      await new Promise((resolve) => requestAnimationFrame(() => resolve()));
      return performance.now() - started;
    })()`);
  const click = (selector) => `document.querySelector(${JSON.stringify(selector)}).click();`;
  const search = (text) => `(() => {
    const input = document.querySelector('input[type=search]');
    input.value = ${JSON.stringify(text)};
    input.dispatchEvent(new Event('input', { bubbles: true }));
  })();`;
  const filters = [];
  const sorts = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const times = [
      await interaction(click('button[data-filter=failed]')),
      await interaction(search('order 4242')),
      await interaction(search('')),
      await interaction(click('button[data-filter=all]')),
    ];
    const sortTimes = [
      await interaction(click('button[data-sort=score]')),
      await interaction(click('button[data-sort=id]')),
      await interaction(click('button[data-sort=id]')),
    ];
    if (round > 0) {
      filters.push(Math.max(...times));
      sorts.push(Math.max(...sortTimes));
    }
  }
  const filter = middle(filters);
  const sort = middle(sorts);
  ok =
    report(
      'viewer: 100,000-case run, slowest filter',
      filter.toFixed(0),
      'ms',
      '<= 150 ms',
      filter <= 150,
    ) && ok;
  ok =
    report(
      'viewer: 100,000-case run, slowest sort',
      sort.toFixed(0),
      'ms',
      '<= 150 ms',
      sort <= 150,
    ) && ok;
  const heap = (await page.evaluate('performance.memory.usedJSHeapSize')) / 1024 / 1024;
  ok =
    report(
      'viewer: 100,000-case run, page JS heap',
      heap.toFixed(0),
      'MB',
      '<= 300 MB',
      heap <= 300,
    ) && ok;
  const server = rssMb(bigViewer.child.pid);
  ok =
    report(
      'viewer: 100,000-case run, server resident memory',
      server.toFixed(0),
      'MB',
      '<= 250 MB',
      server <= 250,
    ) && ok;
  await page.close();

  const historyViewer = await startViewer(history.dir);
  viewers.push(historyViewer.child);
  const loads = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const historyPage = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const started = performance.now();
    await historyPage.goto(historyViewer.url);
    await historyPage.locator(`tr.run-row >> nth=${HISTORY_RUNS - 1}`).waitFor({ timeout: 60_000 });
    if (round > 0) loads.push(performance.now() - started);
    await historyPage.close();
  }
  const load = middle(loads);
  ok =
    report(
      'viewer: history of 200 runs, load',
      load.toFixed(0),
      'ms',
      '<= 1000 ms',
      load <= 1000,
    ) && ok;
} finally {
  for (const child of viewers) child.kill('SIGINT');
  await browser.close();
  big.cleanup();
  history.cleanup();
}
process.exit(ok ? 0 : 1);
