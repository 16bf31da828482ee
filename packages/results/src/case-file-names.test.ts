import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCaseFileNames, safeFileStem } from './case-file-names.js';

describe('safeFileStem', () => {
  it('keeps ordinary ids as they are', () => {
    expect(safeFileStem('refund-001')).toBe('refund-001');
    expect(safeFileStem('Case_2.b')).toBe('Case_2.b');
    expect(safeFileStem('返金-001')).toBe('返金-001');
  });

  it.each([
    '../../etc/passwd',
    '..',
    '.',
    '',
    '/abs/path',
    'a\\b',
    'C:\\x',
    'nul',
    'CON',
    'x\u0000y',
    'tab\there',
    'name.',
    `${'é'.repeat(200)}`,
  ])('turns %j into one safe file name part', (id) => {
    const stem = safeFileStem(id);
    expect(stem).not.toMatch(/[/\\:\u0000-\u001f]/);
    expect(stem).not.toMatch(/^\./);
    expect(stem).not.toMatch(/\.$/);
    expect(stem.length).toBeGreaterThan(0);
    expect(Buffer.byteLength(stem)).toBeLessThanOrEqual(107);
    const folder = path.resolve('/tmp/traces');
    expect(path.dirname(path.resolve(folder, `${stem}_attempt-1.json`))).toBe(folder);
  });

  it('keeps ids that sanitise alike apart', () => {
    expect(safeFileStem('a/b')).not.toBe(safeFileStem('a:b'));
    expect(safeFileStem('a/b')).not.toBe('a_b');
    expect(safeFileStem('a/b')).toMatch(/^a_b-[0-9a-f]{6}$/);
  });
});

describe('createCaseFileNames', () => {
  it('gives the same case the same stem and another case with the same id a different one', () => {
    const names = createCaseFileNames();
    const first = { evalId: 'refund-001', dataset: 'support', evalFile: '/p/support.yaml' };
    const second = { evalId: 'refund-001', dataset: 'billing', evalFile: '/p/billing.yaml' };
    expect(names.stemFor(first)).toBe('refund-001');
    expect(names.stemFor(second)).toBe('billing__refund-001');
    expect(names.stemFor(first)).toBe('refund-001');
    expect(names.stemFor(second)).toBe('billing__refund-001');
  });

  it('falls back to a counter when dataset and id are the same too, and ignores letter case', () => {
    const names = createCaseFileNames();
    expect(names.stemFor({ evalId: 'x', dataset: 'd', evalFile: '/a/d.yaml' })).toBe('x');
    expect(names.stemFor({ evalId: 'x', dataset: 'd', evalFile: '/b/d.yaml' })).toBe('d__x');
    expect(names.stemFor({ evalId: 'x', dataset: 'd', evalFile: '/c/d.yaml' })).toBe('d__x-2');
    expect(names.stemFor({ evalId: 'X', dataset: 'D', evalFile: '/e/D.yaml' })).toBe('D__X-3');
  });
});
