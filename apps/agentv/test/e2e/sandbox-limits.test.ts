import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentvContainers,
  BUSYBOX_IMAGE,
  engineEnv,
  noEngine,
  sandboxCase,
  sandboxProject,
} from '../support/docker.js';
import { type Project, parseJsonl, runAgentv } from '../support/project.js';

// A case that exhausts its container's memory or processes ends as that case's error; the other
// cases, before and after it in the same pooled container, still pass.

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

/** True only in the tests' images (their /etc/os-release), false on any host. */
const IN_TEST_IMAGE = 'grep -q ID=agentv-test /etc/os-release';

const OK = '- { name: fine, type: contains, value: fine }';

/** The cases of a run: `ok-1`, then `bad`, then `ok-2` and `ok-3`, run one at a time (one slot). */
function cases(): string {
  return ['ok-1', 'bad', 'ok-2', 'ok-3'].map((id) => sandboxCase(id, OK)).join('\n');
}

// biome-ignore lint/suspicious/noExplicitAny: result lines of a known shape
function byId(): Record<string, Record<string, any>> {
  const lines = parseJsonl(readFileSync(project!.file('out.jsonl'), 'utf8'));
  return Object.fromEntries(lines.map((line) => [line.eval_id, line]));
}

describe.skipIf(noEngine)('limits of a container (workspace.docker)', () => {
  it('a memory hog over `memory:` ends as its case’s error "out of memory (limit 32m)"; the others pass', async () => {
    project = await sandboxProject({
      // The agent itself (dd, exec-ed) allocates a 256 MB block in memory.
      command: `case {EVAL_ID} in bad) ${IN_TEST_IMAGE} && exec dd if=/dev/zero of=/dev/null bs=256M count=1; echo survived ;; *) echo fine ;; esac`,
      workspace: `docker: { image: ${BUSYBOX_IMAGE}, memory: 32m, cpus: 0.5 }`,
      cases: cases(),
    });
    const run = await runAgentv(
      [
        'eval',
        'evals/sandbox.yaml',
        '--out',
        'out.jsonl',
        '--workers',
        '1',
        '--workspace-root',
        'ws',
      ],
      project.dir,
      engineEnv(),
    );
    const lines = byId();
    expect(lines.bad?.error).toMatch(/out of memory \(limit 32m\)/);
    expect(lines.bad?.candidate_answer ?? '').not.toContain('survived');
    for (const id of ['ok-1', 'ok-2', 'ok-3'])
      expect(lines[id], id).toMatchObject({ passed: true });
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.code).not.toBe(0);
    expect(agentvContainers({ runId: lines['ok-1']?.run.id })).toEqual([]);
  });

  it('a fork bomb ends as its case’s error (process limit or timeout); the others pass', async () => {
    project = await sandboxProject({
      // Without `&`, the bomb's first shell waits on its pipeline: the case cannot end by itself.
      // It goes off only inside the test image: never on this machine, whatever AgentV does.
      command: `case {EVAL_ID} in bad) ${IN_TEST_IMAGE} && { b() { b | b; }; b; } ;; *) echo fine ;; esac`,
      // Half a core and 256 MB, so the bomb cannot starve the machine while the limits stop it.
      workspace: `docker: { image: ${BUSYBOX_IMAGE}, cpus: 0.5, memory: 256m }`,
      cases: cases(),
      targetSettings: '    timeout_seconds: 10\n',
    });
    const run = await runAgentv(
      [
        'eval',
        'evals/sandbox.yaml',
        '--out',
        'out.jsonl',
        '--workers',
        '1',
        '--workspace-root',
        'ws',
      ],
      project.dir,
      engineEnv(),
    );
    const lines = byId();
    expect(lines.bad?.error).toMatch(/timed out|process|pids|fork|out of memory/i);
    for (const id of ['ok-1', 'ok-2', 'ok-3'])
      expect(lines[id], id).toMatchObject({ passed: true });
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.code).not.toBe(0);
    expect(agentvContainers({ runId: lines['ok-1']?.run.id })).toEqual([]);
  });
});
