import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BUSYBOX_IMAGE,
  engineEnv,
  noEngine,
  sandboxCase,
  sandboxProject,
} from '../support/docker.js';
import { type LocalServer, startLocalServer } from '../support/processes.js';
import { type Project, parseJsonl, runAgentv } from '../support/project.js';

// What a case in a container can reach and change, seen through the built CLI against the
// tests' engine. Every image here has an /etc/os-release saying ID=agentv-test, which no host
// has: a command that prints it ran inside.

let project: Project | undefined;
let server: LocalServer | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
  await server?.close();
  server = undefined;
});

function results() {
  return parseJsonl(readFileSync(project!.file('out.jsonl'), 'utf8'));
}

describe.skipIf(noEngine)('a case in a container (workspace.docker)', () => {
  it('cannot reach a server on the host’s 127.0.0.1 (network: none by default)', async () => {
    server = await startLocalServer((_request, response) => response.end('reached'));
    project = await sandboxProject({
      // The answer says where the command ran and whether the server answered.
      command: `cat /etc/os-release; wget -q -T 5 -O - ${server.url}/from-the-sandbox && echo REACHED || echo UNREACHABLE`,
      workspace: `docker: { image: ${BUSYBOX_IMAGE} }`,
      cases: sandboxCase('reach-out', '- { name: tried, type: contains, value: UNREACHABLE }'),
    });
    const run = await runAgentv(
      ['eval', 'evals/sandbox.yaml', '--out', 'out.jsonl', '--workspace-root', 'ws'],
      project.dir,
      engineEnv(),
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const [line] = results();
    expect(line?.candidate_answer).toContain('ID=agentv-test');
    expect(line?.candidate_answer).toContain('UNREACHABLE');
    expect(line).toMatchObject({ passed: true });
    expect(run.code).toBe(0);
    expect(server.requests).toEqual([]);
  });

  it('with read_only: true, cannot write outside /workspace and /tmp; what it changed in the workspace is graded', async () => {
    project = await sandboxProject({
      command: [
        'pwd',
        'echo x > /etc/agentv-probe && echo ROOT-WRITABLE || echo ROOT-READ-ONLY',
        'echo x > /agentv-probe && echo SLASH-WRITABLE || echo SLASH-READ-ONLY',
        'echo x > /tmp/probe && echo TMP-WRITABLE',
        'echo changed > result.txt && echo WORKSPACE-WRITABLE',
        'rm README.md',
      ].join('; '),
      workspace: `docker: { image: ${BUSYBOX_IMAGE}, read_only: true }`,
      cases: sandboxCase(
        'write-around',
        `- { name: root, type: contains, value: ROOT-READ-ONLY }
- { name: slash, type: contains, value: SLASH-READ-ONLY }
- { name: tmp, type: contains, value: TMP-WRITABLE }
- { name: result, type: file, path: result.txt, equals: "changed" }
- { name: scope, type: diff, must_change: [result.txt, README.md] }`,
      ),
    });
    const run = await runAgentv(
      ['eval', 'evals/sandbox.yaml', '--out', 'out.jsonl', '--workspace-root', 'ws'],
      project.dir,
      engineEnv(),
    );
    const [line] = results();
    expect(line?.candidate_answer).toMatch(/^\/workspace\n/);
    expect(line?.candidate_answer).toContain('WORKSPACE-WRITABLE');
    const verdicts = Object.fromEntries(
      line?.evaluator_results.map((result: { name: string; verdict: string }) => [
        result.name,
        result.verdict,
      ]),
    );
    expect(verdicts).toEqual({
      root: 'pass',
      slash: 'pass',
      tmp: 'pass',
      result: 'pass',
      scope: 'pass',
    });
    expect(line?.workspace).toMatchObject({ files_changed: 2 });
    expect(run.code).toBe(0);
  });

  it('runs hooks and command graders inside the container, in /workspace', async () => {
    project = await sandboxProject({
      command: 'cat /etc/os-release; cat hook-saw.txt',
      workspace: `docker: { image: ${BUSYBOX_IMAGE} }
hooks:
  before_each: { command: "cat /etc/os-release > hook-saw.txt; pwd >> hook-saw.txt" }
  after_each: { command: [sh, -c, "cat /etc/os-release > /tmp/after-each-ran"] }`,
      cases: sandboxCase(
        'inside',
        `- { name: agent-inside, type: contains, value: ID=agentv-test }
- name: grader-inside
  type: command
  command: [sh, -c, "grep -q ID=agentv-test /etc/os-release && [ \\"$(pwd)\\" = /workspace ]"]
- name: hook-inside
  type: command
  command: "grep -q ID=agentv-test hook-saw.txt && grep -qx /workspace hook-saw.txt"`,
      ),
    });
    const run = await runAgentv(
      ['eval', 'evals/sandbox.yaml', '--out', 'out.jsonl', '--workspace-root', 'ws'],
      project.dir,
      engineEnv(),
    );
    const [line] = results();
    const verdicts = Object.fromEntries(
      line?.evaluator_results.map((result: { name: string; verdict: string }) => [
        result.name,
        result.verdict,
      ]),
    );
    expect(verdicts).toEqual({
      'agent-inside': 'pass',
      'grader-inside': 'pass',
      'hook-inside': 'pass',
    });
    expect(run.stderr).not.toMatch(/after_each/);
    expect(run.code).toBe(0);
  });
});
