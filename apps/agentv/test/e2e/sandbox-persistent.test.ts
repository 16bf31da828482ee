import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentvContainers,
  engineEnv,
  noEngine,
  sandboxCase,
  sandboxProject,
} from '../support/docker.js';
import { NODE_IMAGE } from '../support/docker-setup.js';
import { type Project, parseJsonl, runAgentv } from '../support/project.js';

// A `mode: persistent` agent in containers (workspace.docker): one process per pooled
// container, kept across its cases, restarted after it dies, killed inside on a timeout.

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

const MARKER = `agentv-persistent-e2e-${process.pid}`;

/**
 * Answers `<id> <workspace> <pid> <lines answered> <container> <leftover sleeps>`; once per
 * container, `die-*` exits without answering and `slow-*` starts a child and does not answer.
 */
const AGENT = `
const { execSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
let n = 0;
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const request = JSON.parse(line);
  n += 1;
  if (request.id.startsWith('die') && !fs.existsSync('/tmp/died')) {
    fs.writeFileSync('/tmp/died', '');
    process.exit(3);
  }
  if (request.id.startsWith('slow') && !fs.existsSync('/tmp/slowed')) {
    fs.writeFileSync('/tmp/slowed', '');
    spawn('sleep', ['6001'], { stdio: 'ignore' });
    return;
  }
  const sleeps = execSync('ps -o args').toString().split('\\n').filter((l) => l.startsWith('sleep 6001')).length;
  const text = [request.id, request.workspace, process.pid, n, os.hostname(), sleeps].join(' ');
  process.stdout.write(JSON.stringify({ id: request.id, text }) + '\\n');
});
`;

async function persistentProject(ids: string[], settings = ''): Promise<Project> {
  return sandboxProject({
    command: `node /evals/agent.cjs ${MARKER}`,
    workspace: `docker: { image: ${NODE_IMAGE}, mounts: [{ source: ., target: /evals, read_only: true }] }`,
    cases: ids
      .map((id) => sandboxCase(id, '- { name: any, type: regex, pattern: "." }'))
      .join('\n'),
    targetSettings: `    mode: persistent\n${settings}`,
    files: { 'evals/agent.cjs': AGENT },
  });
}

// biome-ignore lint/suspicious/noExplicitAny: result lines of a known shape
function results(): Record<string, Record<string, any>> {
  const lines = parseJsonl(readFileSync(project!.file('out.jsonl'), 'utf8'));
  return Object.fromEntries(lines.map((line) => [line.eval_id, line]));
}

/** Processes of this machine (containers' included) running the test's agent. */
function agentProcesses(): string[] {
  return execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(MARKER) && !line.includes('ps -eo'));
}

const evalArgs = (workers: number) => [
  'eval',
  'evals/sandbox.yaml',
  '--out',
  'out.jsonl',
  '--workers',
  String(workers),
  '--workspace-root',
  'ws',
];

describe.skipIf(noEngine)('mode: persistent in containers (workspace.docker)', () => {
  it('answers 6 cases with 2 workers: one agent per container, its state kept across cases', async () => {
    const ids = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'];
    project = await persistentProject(ids);
    const run = await runAgentv(evalArgs(2), project.dir, engineEnv());
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.code).toBe(0);
    const lines = results();
    const perContainer = new Map<string, { pids: Set<string>; counts: number[] }>();
    for (const id of ids) {
      expect(lines[id]?.error, id).toBeUndefined();
      const [answered, workspace, pid, count, container] = String(
        lines[id]?.candidate_answer,
      ).split(' ');
      expect([answered, workspace]).toEqual([id, '/workspace']);
      const seen = perContainer.get(container!) ?? { pids: new Set(), counts: [] };
      seen.pids.add(pid!);
      seen.counts.push(Number(count));
      perContainer.set(container!, seen);
    }
    expect(perContainer.size).toBeLessThanOrEqual(2);
    for (const { pids, counts } of perContainer.values()) {
      expect(pids.size).toBe(1);
      expect(counts.sort((a, b) => a - b)).toEqual(counts.map((_, index) => index + 1));
    }
    expect(agentvContainers({ runId: lines.c1?.run.id })).toEqual([]);
    expect(agentProcesses()).toEqual([]);
  });

  it('restarts an agent that died; a timeout kills it and its child inside the container', async () => {
    project = await persistentProject(
      ['a', 'die-1', 'b', 'slow-1', 'c'],
      // Each worker's first case includes its start (docker exec, Node in the container): room
      // for that on a busy machine; only slow-1's first attempt is meant to time out.
      '    timeout_seconds: 10\n',
    );
    const run = await runAgentv([...evalArgs(1), '--max-retries', '1'], project.dir, engineEnv());
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const lines = results();
    const answer = (id: string) => String(lines[id]?.candidate_answer).split(' ');
    expect(lines.a?.error).toBeUndefined();
    // The agent died on die-1's first attempt; a new one (its first line) answered the retry.
    expect(lines['die-1']?.error).toBeUndefined();
    expect(answer('die-1')[3]).toBe('1');
    expect(answer('die-1')[2]).not.toBe(answer('a')[2]);
    expect(answer('b')[2]).toBe(answer('die-1')[2]);
    // slow-1 timed out; the retry, in the same container (it has /tmp/slowed), is answered by a
    // new agent, and no `sleep 6001` of the killed one is left there.
    expect(lines['slow-1']?.error).toBeUndefined();
    expect(answer('slow-1')[3]).toBe('1');
    expect(answer('slow-1')[5]).toBe('0');
    expect(answer('c')[2]).toBe(answer('slow-1')[2]);
    expect([lines['die-1']?.attempts, lines['slow-1']?.attempts, lines.b?.attempts]).toEqual([
      2, 2, 1,
    ]);
    expect(run.code).toBe(0);
    expect(agentvContainers({ runId: lines.a?.run.id })).toEqual([]);
    expect(agentProcesses()).toEqual([]);
  });
});
