import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPORT_TEXT_CHARS } from './cut-for-display.js';
import { formatJunitXml, writeJunitReport } from './junit-writer.js';
import { errored, makeResult, scored } from './test-support/make-result.js';
import { elementsNamed, parseXml } from './test-support/parse-xml.js';

const support = { dataset: 'support', evalFile: '/repo/evals/support.yaml' };
const billing = { dataset: 'billing', evalFile: '/repo/evals/billing.yaml' };

const results = [
  scored('refund-001', 1, { ...support, durationMs: 1500 }),
  scored('refund-002', 0.4, {
    ...support,
    durationMs: 250,
    misses: ['Answer does not contain "$59.90"', 'No lookupOrder call'],
    reasoning: 'Refund amount missing',
  }),
  { ...errored('refund-003', 'agent exited with code 3\nstderr: boom'), ...support },
  scored('invoice-001', 0.9, { ...billing, durationMs: 10 }),
];

describe('formatJunitXml', () => {
  it('writes a suite per eval file and target, with the target in classname, when a run has several', () => {
    const twoTargets = [
      scored('refund-001', 1, { ...support, target: 'gpt' }),
      scored('refund-001', 0.2, { ...support, target: 'claude', misses: ['No refund'] }),
      scored('refund-002', 1, { ...support, target: 'gpt' }),
      scored('refund-002', 1, { ...support, target: 'claude' }),
    ];
    const root = parseXml(formatJunitXml(twoTargets, { relativeTo: '/repo' }));
    const suites = elementsNamed(root, 'testsuite');
    expect(
      suites.map((suite) => [
        suite.attributes.name,
        suite.attributes.tests,
        suite.attributes.failures,
      ]),
    ).toEqual([
      ['support [gpt]', '2', '0'],
      ['support [claude]', '2', '1'],
    ]);
    expect(elementsNamed(suites[1]!, 'property').map((property) => property.attributes)).toEqual([
      { name: 'target', value: 'claude' },
    ]);
    expect(
      elementsNamed(root, 'testcase').map(
        (testcase) => `${testcase.attributes.classname} ${testcase.attributes.name}`,
      ),
    ).toEqual([
      'support.gpt refund-001',
      'support.gpt refund-002',
      'support.claude refund-001',
      'support.claude refund-002',
    ]);
  });

  it('writes a suite per eval file with counts, failures and errors', () => {
    const root = parseXml(formatJunitXml(results, { relativeTo: '/repo' }));
    expect(root.name).toBe('testsuites');
    expect(root.attributes).toMatchObject({
      name: 'agentv',
      tests: '4',
      failures: '1',
      errors: '1',
    });
    const suites = elementsNamed(root, 'testsuite');
    expect(suites.map((suite) => suite.attributes)).toEqual([
      expect.objectContaining({
        name: 'support',
        tests: '3',
        failures: '1',
        errors: '1',
        skipped: '0',
        time: '1.870',
        file: path.join('evals', 'support.yaml'),
      }),
      expect.objectContaining({ name: 'billing', tests: '1', failures: '0', errors: '0' }),
    ]);
    expect(suites[0]!.attributes.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);

    const cases = elementsNamed(root, 'testcase');
    expect(
      cases.map((testcase) => [testcase.attributes.classname, testcase.attributes.name]),
    ).toEqual([
      ['support', 'refund-001'],
      ['support', 'refund-002'],
      ['support', 'refund-003'],
      ['billing', 'invoice-001'],
    ]);
    expect(elementsNamed(cases[0]!, 'failure')).toEqual([]);
    const [failure] = elementsNamed(cases[1]!, 'failure');
    expect(failure?.attributes.message).toBe('Answer does not contain "$59.90"');
    expect(failure?.text).toContain('miss: No lookupOrder call');
    expect(failure?.text).toContain('reasoning: Refund amount missing');
    const [error] = elementsNamed(cases[2]!, 'error');
    expect(error?.attributes.message).toBe('agent exited with code 3');
    expect(error?.text).toBe('agent exited with code 3\nstderr: boom');
    expect(elementsNamed(cases[2]!, 'failure')).toEqual([]);
  });

  it('escapes markup, quotes, control characters and lone surrogates', () => {
    const nasty = `<script>&"quotes" 'single' ]]> \u001b[31mred\u0000 \ud800 tab\tline\nnext`;
    const xml = formatJunitXml([
      makeResult({
        evalId: nasty,
        dataset: nasty,
        passed: false,
        score: 0,
        misses: [nasty],
        candidateAnswer: nasty,
      }),
    ]);
    expect(xml).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/);
    const root = parseXml(xml);
    const [testcase] = elementsNamed(root, 'testcase');
    expect(testcase?.attributes.name).toBe(
      `<script>&"quotes" 'single' ]]> \\u001b[31mred\\u0000 \ufffd tab\tline\nnext`,
    );
    expect(elementsNamed(root, 'system-out')[0]?.text).toContain('\\u001b[31mred');
    expect(elementsNamed(root, 'failure')[0]?.attributes.message).toBe(
      `<script>&"quotes" 'single' ]]> \\u001b[31mred\\u0000 \ufffd tab\tline`,
    );
  });

  it('writes an empty run as an empty testsuites element', () => {
    const root = parseXml(formatJunitXml([]));
    expect(root.attributes).toMatchObject({ tests: '0', failures: '0', errors: '0' });
    expect(root.children).toEqual([]);
  });
});

describe('writeJunitReport', () => {
  it('creates the parent folder and writes the file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'agentv-junit-'));
    try {
      const filePath = path.join(dir, 'reports', 'junit.xml');
      await writeJunitReport(filePath, results);
      expect(elementsNamed(parseXml(await readFile(filePath, 'utf8')), 'testcase')).toHaveLength(4);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('formatJunitXml of an interrupted run', () => {
  it('writes every case that did not run as a skipped testcase, counted in skipped', () => {
    const xml = formatJunitXml([scored('refund-001', 1, support)], {
      relativeTo: '/repo',
      notRun: [{ ...billing, evalId: 'invoice-001', target: 'default' }],
    });
    const root = parseXml(xml);
    expect(root.attributes.tests).toBe('2');
    expect(root.attributes.skipped).toBe('1');
    const suite = elementsNamed(parseXml(xml), 'testsuite').find(
      (s) => s.attributes.name === 'not run (interrupted)',
    )!;
    expect(suite.attributes.skipped).toBe('1');
    expect(xml).toContain('run interrupted: 1 of 2 cases did not run');
    expect(xml).toMatch(/<testcase name="invoice-001"[^>]*file="evals\/billing.yaml">\s*<skipped /);
  });

  it('writes no skipped suite for a complete run', () => {
    const xml = formatJunitXml([scored('refund-001', 1, support)], { notRun: [] });
    expect(xml).not.toContain('skipped="1"');
    expect(xml).not.toContain('interrupted');
  });

  it('cuts a long answer in <system-out> with a marker', () => {
    const answer = 'x'.repeat(REPORT_TEXT_CHARS + 2048);
    const xml = formatJunitXml([scored('long', 1, { ...support, candidateAnswer: answer })]);
    expect(xml).toContain(
      `<system-out>${'x'.repeat(REPORT_TEXT_CHARS)}\n… [cut: 2 KiB more; the full answer is in the result file]</system-out>`,
    );
  });
});
