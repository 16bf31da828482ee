import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPORT_TEXT_CHARS, REPORT_TRACE_CHARS } from './cut-for-display.js';
import { type HtmlReportData, renderHtmlReport, writeHtmlReport } from './html-report.js';
import { errored, makeResult, scored } from './test-support/make-result.js';

const hostile =
  '</script><script>window.pwned = 1</script><!-- <img src=x onerror=alert(1)> &amp;\u2028';
const trace = [
  {
    type: 'tool_call' as const,
    timestamp: '2025-01-01T12:00:00.000Z',
    name: 'search',
    input: { q: hostile },
  },
  {
    type: 'tool_result' as const,
    timestamp: '2025-01-01T12:00:01.500Z',
    name: 'search',
    output: 'ok',
  },
];
const results = [
  scored('refund-001', 1, { trace, evalFile: '/repo/evals/support.yaml', dataset: 'support' }),
  scored('refund-002', 0.4, { candidateAnswer: hostile, misses: [hostile], trace }),
  errored('refund-003', 'agent exited with code 3'),
];

/** The JSON the page embeds, read back the way the page's script reads it. */
function embeddedData(html: string): HtmlReportData {
  const match = /<script type="application\/json" id="agentv-data">([^<]*)<\/script>/.exec(html);
  expect(match).not.toBeNull();
  return JSON.parse(match![1]!);
}

describe('renderHtmlReport', () => {
  it('shows a banner, with its text escaped, when the run was interrupted', () => {
    const html = renderHtmlReport(results, {
      interrupted: 'interrupted: 2 of 5 <cases> did not run',
    });
    expect(html).toMatch(/<div id="agentv-interrupted" role="alert"[^>]*>Incomplete run/);
    expect(html).toContain('interrupted: 2 of 5 &lt;cases&gt; did not run');
    expect(renderHtmlReport(results)).not.toContain('agentv-interrupted');
  });

  it('embeds every case with its status, answer, evaluators and trace', () => {
    const html = renderHtmlReport(results, { relativeTo: '/repo', resultFile: 'out.jsonl' });
    const data = embeddedData(html);
    expect(data.statistics).toMatchObject({ total: 3, passed: 1, failed: 1, errored: 1 });
    expect(data.statistics.histogram.map((bin) => bin.count)).toEqual([0, 0, 1, 0, 1]);
    expect(data.resultFile).toBe('out.jsonl');
    expect(data.cases.map((item) => [item.id, item.status])).toEqual([
      ['refund-001', 'passed'],
      ['refund-002', 'failed'],
      ['refund-003', 'errored'],
    ]);
    expect(data.cases[0]).toMatchObject({
      evalFile: path.join('evals', 'support.yaml'),
      trace,
      traceSummary: { eventCount: 2, toolNames: ['search'], toolCallsByName: { search: 1 } },
    });
    expect(data.cases[1]?.answer).toBe(hostile);
    expect(data.cases[2]).toMatchObject({ error: 'agent exited with code 3', trace: null });
  });

  it('cannot be broken out of by answers or traces, and references nothing outside the file', () => {
    const html = renderHtmlReport(results);
    expect(html.match(/<\/script/g)).toHaveLength(2);
    expect(html).not.toContain('<!--');
    expect(html).not.toContain('\u2028');
    expect(embeddedData(html).cases[1]?.misses).toEqual([hostile]);
    // Outside the embedded data (where hostile text is inert JSON) nothing loads anything.
    const page = html.replace(/(id="agentv-data">)[^<]*/, '$1');
    expect(page).not.toMatch(/\b(src|href)\s*=/i);
    expect(page).not.toMatch(/https?:\/\//);
    expect(page).not.toMatch(/url\(|@import/);
    expect(page).toContain("default-src 'none'");
  });

  it('embeds each named metric with its mean, and the metric of each grader', () => {
    const metricResult = (id: string, accuracy: number) =>
      makeResult({
        evalId: id,
        metrics: { accuracy },
        evaluatorResults: [
          {
            name: 'm',
            type: 'contains',
            score: accuracy,
            weight: 1,
            verdict: 'pass',
            hits: [],
            misses: [],
            metric: 'accuracy',
          },
        ],
      });
    const data = embeddedData(renderHtmlReport([metricResult('a', 1), metricResult('b', 0.5)]));
    expect(data.statistics.metrics).toEqual([{ name: 'accuracy', mean: 0.75, cases: 2 }]);
    expect(data.cases[0]?.evaluators[0]?.metric).toBe('accuracy');
  });

  it('escapes the title', () => {
    expect(renderHtmlReport([], { title: '<b>Run</b>' })).toContain(
      '<title>&lt;b&gt;Run&lt;/b&gt;</title>',
    );
  });
});

describe('renderHtmlReport: workspaces', () => {
  it("embeds a case's changed files and diff, escaped, and only counts when nothing was saved", () => {
    const withChanges = scored('fix-bug', 0, {
      workspace: { filesChanged: 1, insertions: 1, deletions: 0, keptAt: '/tmp/ws-1' },
    });
    const countsOnly = scored('fix-other', 1, {
      workspace: { filesChanged: 2, insertions: 3, deletions: 4 },
    });
    const diff = `diff --git a/x.html b/x.html\n+${hostile}\n`;
    const html = renderHtmlReport([withChanges, countsOnly, results[0]!], {
      workspaceChanges: (result) =>
        result === withChanges
          ? {
              files: [{ path: 'x.html', status: 'added', insertions: 1, deletions: 0 }],
              insertions: 1,
              deletions: 0,
              diff,
            }
          : undefined,
    });
    expect(html.match(/<\/script/g)).toHaveLength(2);
    const [first, second, third] = embeddedData(html).cases;
    expect(first?.workspace).toEqual({
      filesChanged: 1,
      insertions: 1,
      deletions: 0,
      keptAt: '/tmp/ws-1',
      files: [{ path: 'x.html', status: 'added', binary: false }],
      diff,
    });
    expect(second?.workspace).toMatchObject({ filesChanged: 2, files: null, diff: null });
    expect(third?.workspace).toBeNull();
  });
});

describe('writeHtmlReport', () => {
  it('creates the parent folder and writes the page', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'agentv-html-'));
    try {
      const filePath = path.join(dir, 'reports', 'run.html');
      await writeHtmlReport(filePath, results);
      expect(embeddedData(await readFile(filePath, 'utf8')).cases).toHaveLength(3);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('cuts a long answer and long trace payloads with a marker; the result keeps them whole', () => {
    const answer = 'x'.repeat(REPORT_TEXT_CHARS + 1000);
    const output = 'o'.repeat(REPORT_TRACE_CHARS + 10);
    const long = scored('long', 1, {
      candidateAnswer: answer,
      trace: [{ type: 'tool_result', timestamp: '2025-01-01T12:00:00.000Z', output }],
    });
    const data = embeddedData(renderHtmlReport([long]));
    expect(data.cases[0]!.answer).toBe(
      `${'x'.repeat(REPORT_TEXT_CHARS)}\n… [cut: 1000 B more; the full answer is in the result file]`,
    );
    expect(data.cases[0]!.trace![0]!.output).toBe(
      `${'o'.repeat(REPORT_TRACE_CHARS)}\n… [cut: 10 B more]`,
    );
    expect(long.candidateAnswer).toBe(answer);
  });

  it("shows a conversation turn by turn, with each turn's grade", () => {
    const conversation = scored('chat-001', 1, {
      conversationEnd: 'goal_reached',
      turns: [
        {
          turn: 1,
          source: 'scripted',
          userMessage: 'I want a refund',
          answer: 'What is your order number?',
          traceSummary: null,
          evaluatorResults: [],
          score: 1,
          passed: true,
          attempts: 1,
          durationMs: 5,
        },
        {
          turn: 2,
          source: 'simulated',
          userMessage: hostile,
          answer: '',
          traceSummary: null,
          evaluatorResults: [],
          attempts: 3,
          durationMs: 5,
          error: 'agent exited with code 1',
        },
      ],
    });
    const data = embeddedData(renderHtmlReport([conversation]));
    expect(data.cases[0]!.conversation).toEqual({
      end: 'goal_reached',
      turns: [
        expect.objectContaining({ turn: 1, user: 'I want a refund', status: 'passed', score: 1 }),
        expect.objectContaining({
          turn: 2,
          user: hostile,
          status: 'errored',
          error: 'agent exited with code 1',
        }),
      ],
    });
    expect(embeddedData(renderHtmlReport(results)).cases[0]!.conversation).toBeNull();
  });
});
