import { appendFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CaseResponse, RunResponse, RunsResponse } from '../shared/api-types.js';
import { resultLine } from '../test-support/result-line.js';
import { startViewer, type Viewer } from './start-viewer.js';

interface Reply {
  status: number;
  type: string;
  body: string;
}

/** A raw GET: the path is sent exactly as given (no URL normalisation of `..`). */
function get(
  viewer: Viewer,
  rawPath: string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const url = new URL(viewer.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: rawPath, method: 'GET', headers },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            type: String(response.headers['content-type']),
            body,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function getJson<T>(viewer: Viewer, rawPath: string): Promise<T> {
  const reply = await get(viewer, rawPath);
  expect(reply.status, reply.body).toBe(200);
  return JSON.parse(reply.body) as T;
}

/** Waits for `check` to hold, polling; generous, since the machine may be busy. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('startViewer', () => {
  let dir: string;
  let viewer: Viewer | undefined;
  const results = () => path.join(dir, 'project', '.agentv', 'results');
  const run = (name: string) => path.join(results(), name);

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'agentv-viewer-'));
    await mkdir(results(), { recursive: true });
    await writeFile(path.join(dir, 'secret.txt'), 'top secret');
    await writeFile(
      run('eval_a.jsonl'),
      resultLine('case-1') + resultLine('case-2', { passed: false, failure_class: 'agent' }),
    );
    await mkdir(run('eval_a.workspaces'));
    await writeFile(
      run('eval_a.workspaces/case-2.json'),
      JSON.stringify({
        eval_id: 'case-2',
        dataset: 'suite',
        eval_file: 'evals/suite.yaml',
        target: 'default',
        files_changed: 1,
        insertions: 1,
        deletions: 0,
        files: [{ path: 'x.txt', status: 'added', insertions: 1, deletions: 0 }],
        diff_file: 'case-2.diff',
      }),
    );
    await writeFile(run('eval_a.workspaces/case-2.diff'), '+hello\n');
  });

  afterEach(async () => {
    await viewer?.close();
    viewer = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  const start = async (options: { host?: string } = {}) => {
    viewer = await startViewer({
      sources: { folders: [results()], files: [] },
      base: path.join(dir, 'project'),
      pollMs: 50,
      ...options,
    });
    return viewer;
  };

  it('listens on 127.0.0.1 and answers the runs, a run and a case', async () => {
    const server = await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const runs = await getJson<RunsResponse>(server, '/api/runs');
    expect(runs.runs.map((each) => [each.key, each.cases, each.passed])).toEqual([
      ['.agentv/results/eval_a.jsonl', 2, 1],
    ]);
    const key = encodeURIComponent('.agentv/results/eval_a.jsonl');
    const runReply = await getJson<RunResponse>(server, `/api/run?key=${key}`);
    expect(runReply.cases.id).toEqual(['case-1', 'case-2']);
    expect(runReply.failureClasses).toEqual([{ name: 'agent', count: 1 }]);
    expect(runReply.metrics).toEqual([
      { metric: 'contains', pass: 1, borderline: 0, fail: 1, error: 0 },
    ]);
    const found = await getJson<CaseResponse>(server, `/api/case?key=${key}&line=2`);
    expect(found.record.eval_id).toBe('case-2');
    expect(found.workspace?.diff).toBe('+hello\n');
    const diffLink = found.artifacts.find((link) => link.href.endsWith('.diff'));
    const diff = await get(server, diffLink!.href);
    expect(diff).toMatchObject({ status: 200, body: '+hello\n' });
    expect(diff.type).toMatch(/^text\/plain/);
  });

  it('serves nothing outside the results folder: .., encoded .., absolute and symlinked paths', async () => {
    await symlink(path.join(dir, 'secret.txt'), run('eval_a.workspaces/link.txt'));
    await symlink(dir, run('escape'));
    const server = await start();
    for (const attempt of [
      '/files/../secret.txt',
      '/files/../../../secret.txt',
      '/files/%2e%2e/%2e%2e/%2e%2e/secret.txt',
      '/files/..%2f..%2f..%2fsecret.txt',
      '/files/..%2fsecret.txt',
      '/files/%2fetc%2fpasswd',
      `/files/${encodeURIComponent(path.join(dir, 'secret.txt'))}`,
      '/files/.agentv/results/eval_a.workspaces/link.txt',
      '/files/.agentv/results/escape/secret.txt',
      '/files/.agentv/results/eval_a.workspaces/case-2.diff%00',
      '/api/run?key=..%2F..%2Fsecret.txt',
    ]) {
      const reply = await get(server, attempt);
      expect(reply.status, attempt).toBe(404);
      expect(reply.body, attempt).not.toContain('top secret');
    }
    expect((await get(server, '/files/.agentv/results/eval_a.workspaces/case-2.diff')).status).toBe(
      200,
    );
  });

  it('is read-only, and refuses pages of other sites (Host header)', async () => {
    const server = await start();
    const url = new URL(server.url);
    const post = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: '/api/runs', method: 'POST' },
        (response) => resolve(response.statusCode ?? 0),
      );
      req.on('error', reject);
      req.end();
    });
    expect(post).toBe(405);
    expect((await get(server, '/api/runs', { Host: 'evil.example:80' })).status).toBe(403);
  });

  it('with --host, needs the token it printed', async () => {
    const server = await start({ host: '127.0.0.1' });
    expect(server.token).toMatch(/^[\w-]{20,}$/);
    expect(server.url).toContain(`?token=${server.token}`);
    expect((await get(server, '/api/runs')).status).toBe(401);
    expect((await get(server, '/api/runs?token=wrong')).status).toBe(401);
    expect((await get(server, `/api/runs?token=${server.token}`)).status).toBe(200);
    expect(
      (await get(server, '/api/runs', { Authorization: `Bearer ${server.token}` })).status,
    ).toBe(200);
  });

  it('follows a growing file: a torn last line waits, new files appear, bad lines are reported', async () => {
    const server = await start();
    const key = encodeURIComponent('.agentv/results/eval_a.jsonl');
    const cases = async () =>
      (await getJson<RunResponse>(server, `/api/run?key=${key}`)).cases.id.join(',');
    const line = resultLine('case-3');
    await appendFile(run('eval_a.jsonl'), line.slice(0, 40));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await cases()).toBe('case-1,case-2');
    await appendFile(run('eval_a.jsonl'), `${line.slice(40)}{"eval_id": 3}\n`);
    await eventually(async () => (await cases()) === 'case-1,case-2,case-3', 'case-3');
    // The run list is refreshed on the watcher's next event, which may come after the cases.
    const problems = async () =>
      (await getJson<RunsResponse>(server, '/api/runs')).runs[0]!.problems;
    await eventually(async () => (await problems()).length > 0, 'the bad line');
    expect(await problems()).toEqual([{ line: 4, message: expect.stringContaining('timestamp') }]);
    await writeFile(run('eval_b.jsonl'), resultLine('other'));
    await eventually(
      async () => (await getJson<RunsResponse>(server, '/api/runs')).runs.length === 2,
      'the new file',
    );
  });
});
