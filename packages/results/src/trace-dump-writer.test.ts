import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTraceDumpWriter, type TraceDumpRecord } from './trace-dump-writer.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'agentv-dumps-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const trace = [
  { type: 'tool_call' as const, timestamp: '2025-01-01T12:00:00.000Z', name: 'lookupOrder' },
];
const summary = {
  eventCount: 1,
  toolNames: ['lookupOrder'],
  toolCallsByName: { lookupOrder: 1 },
  errorCount: 0,
};

function attempt(overrides: Partial<TraceDumpRecord> = {}): TraceDumpRecord {
  return {
    evalId: 'refund-001',
    attempt: 1,
    target: 'agent',
    durationMs: 42,
    trace,
    traceSummary: summary,
    ...overrides,
  };
}

/** Every file under `dir`, relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

describe('createTraceDumpWriter', () => {
  it('writes one file per attempt with eval_id, attempt, target, trace and summary', async () => {
    const writer = createTraceDumpWriter(path.join(root, '.agentv', 'traces'));
    const first = await writer.write(
      attempt({ trace: null, traceSummary: null, error: 'timed out after 5s', dataset: 'support' }),
    );
    const second = await writer.write(attempt({ attempt: 2, dataset: 'support' }));
    expect(path.basename(first)).toBe('refund-001_attempt-1.json');
    expect(path.basename(second)).toBe('refund-001_attempt-2.json');
    expect(JSON.parse(await readFile(first, 'utf8'))).toEqual({
      eval_id: 'refund-001',
      dataset: 'support',
      attempt: 1,
      target: 'agent',
      duration_ms: 42,
      error: 'timed out after 5s',
      trace_summary: null,
      trace: null,
    });
    expect(JSON.parse(await readFile(second, 'utf8'))).toEqual({
      eval_id: 'refund-001',
      dataset: 'support',
      attempt: 2,
      target: 'agent',
      duration_ms: 42,
      trace_summary: summary,
      trace,
    });
  });

  it('never writes outside its folder, whatever the id', async () => {
    const folder = path.join(root, 'project', '.agentv', 'traces');
    const writer = createTraceDumpWriter(folder);
    const ids = ['../../escape', '/etc/passwd', '..', 'a/../../b', 'C:\\win', 'x\u0000y', ''];
    for (const evalId of ids) await writer.write(attempt({ evalId }));
    expect(await filesUnder(root)).toEqual(
      (await filesUnder(folder)).map((name) => path.join('project', '.agentv', 'traces', name)),
    );
    expect(await filesUnder(folder)).toHaveLength(ids.length);
  });

  it('keeps two cases with the same id from different files apart', async () => {
    const writer = createTraceDumpWriter(root);
    const a = { dataset: 'support', evalFile: '/p/support.yaml' };
    const b = { dataset: 'billing', evalFile: '/p/billing.yaml' };
    await writer.write(attempt({ ...a }));
    await writer.write(attempt({ ...b }));
    await writer.write(attempt({ ...b, attempt: 2 }));
    await writer.write(attempt({ ...a, attempt: 2 }));
    expect(await filesUnder(root)).toEqual([
      'billing__refund-001_attempt-1.json',
      'billing__refund-001_attempt-2.json',
      'refund-001_attempt-1.json',
      'refund-001_attempt-2.json',
    ]);
    const billing = JSON.parse(
      await readFile(path.join(root, 'billing__refund-001_attempt-2.json'), 'utf8'),
    );
    expect(billing).toMatchObject({ dataset: 'billing', attempt: 2 });
  });

  it('names the repeat of a --repeat run before the attempt, and records it in the file', async () => {
    const writer = createTraceDumpWriter(root, { namesTarget: true });
    for (const repeat of [1, 2, 3]) {
      await writer.write(attempt({ repeat, dataset: 'support', evalFile: '/p/support.yaml' }));
    }
    const retried = await writer.write(
      attempt({ repeat: 2, attempt: 2, dataset: 'support', evalFile: '/p/support.yaml' }),
    );
    expect(await filesUnder(root)).toEqual([
      'refund-001_agent_repeat-1_attempt-1.json',
      'refund-001_agent_repeat-2_attempt-1.json',
      'refund-001_agent_repeat-2_attempt-2.json',
      'refund-001_agent_repeat-3_attempt-1.json',
    ]);
    expect(JSON.parse(await readFile(retried, 'utf8'))).toMatchObject({
      eval_id: 'refund-001',
      repeat: 2,
      attempt: 2,
    });
  });

  it('does not overwrite a file even when records carry no dataset', async () => {
    const writer = createTraceDumpWriter(root);
    await writer.write(attempt());
    await writer.write(attempt());
    expect(await filesUnder(root)).toEqual([
      'refund-001_attempt-1-2.json',
      'refund-001_attempt-1.json',
    ]);
  });
});
