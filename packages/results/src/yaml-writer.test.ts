import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { makeResult } from './test-support/make-result.js';
import { toResultRecord } from './to-result-record.js';
import { createYamlWriter } from './yaml-writer.js';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'agentv-yaml-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const trace = [
  { type: 'tool_call' as const, timestamp: '2025-01-01T12:00:00.000Z', name: 'search' },
];

describe('createYamlWriter', () => {
  it('writes one document per result with the fields of a result line, multiline text as blocks', async () => {
    const filePath = path.join(directory, 'out', 'run.yaml');
    const writer = await createYamlWriter(filePath);
    const first = makeResult({
      evalId: 'multi',
      candidateAnswer: 'Refunded $59.90.\nAnything else?',
      trace,
    });
    const second = makeResult({ evalId: 'yes', candidateAnswer: 'yes' });
    await writer.write(first);
    await writer.write(second);
    await writer.close();

    const text = await readFile(filePath, 'utf8');
    expect(text.startsWith('---\n')).toBe(true);
    expect(text).toContain('candidate_answer: |-\n  Refunded $59.90.\n  Anything else?\n');
    const documents = parseAllDocuments(text);
    expect(documents).toHaveLength(2);
    const values = documents.map((document) => {
      expect(document.errors).toEqual([]);
      return document.toJS();
    });
    expect(values).toEqual([toResultRecord(first), toResultRecord(second)]);
    expect(values[0]).not.toHaveProperty('trace');
    expect(values[1]).toMatchObject({ candidate_answer: 'yes', trace_summary: null });
  });

  it('adds the trace with includeTrace', async () => {
    const filePath = path.join(directory, 'run.yaml');
    const writer = await createYamlWriter(filePath, { includeTrace: true });
    await writer.write(makeResult({ trace }));
    await writer.close();
    const [document] = parseAllDocuments(await readFile(filePath, 'utf8'));
    expect(document?.toJS().trace).toEqual(trace);
  });
});
