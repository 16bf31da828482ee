import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createProviderRegistry, type EvaluationResult, evaluate } from '@agentv/core';
import { cliProviderFactory } from '@agentv/provider-cli';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABELS } from './docker-runtime.js';
import { TEST_IMAGE } from './test-support/docker-engine.js';
import { dockerHost, testRuntime } from './test-support/test-runtime.js';

/**
 * A whole run through `evaluate` with a `cli` target whose cases' workspace has
 * `docker:`: the agent, hooks and graders run in containers of the tests' engine.
 */
/**
 * An eval of two cases that share one container slot: `id` (whose prompt is `prompt`) does what
 * the test is about, then `b-after` must pass in the container that replaced the first one's.
 */
function thenAfter(id: string, prompt: string): string {
  return `workspace:
  docker: { image: ${TEST_IMAGE} }
evalcases:
  - id: ${id}
    input_messages: [{ role: user, content: ${prompt} }]
    evaluators: [{ name: any, type: regex, pattern: "." }]
  - id: b-after
    input_messages: [{ role: user, content: after }]
    evaluators: [{ name: said, type: contains, value: after }]
`;
}

describe.skipIf(dockerHost === undefined)('a run with workspace.docker', () => {
  let dir: string;
  let root: string;
  const providers = createProviderRegistry([cliProviderFactory]);
  const engine = () => new Docker({ socketPath: dockerHost!.replace(/^unix:\/\//, '') });
  // Runs of this test process (other test files run in processes of their own).
  const containersOf = async (_run: string) =>
    engine().listContainers({ all: true, filters: { label: [`${LABELS.pid}=${process.pid}`] } });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-run-docker-'));
    root = path.join(dir, 'workspaces');
    await mkdir(path.join(dir, 'evals', 'app'), { recursive: true });
    await writeFile(path.join(dir, 'evals', 'app', 'task.txt'), 'fix it\n');
    await writeFile(path.join(dir, 'evals', 'notes.md'), 'the notes\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function run(
    evalYaml: string,
    target: Record<string, unknown>,
    runId: string,
    workers = 2,
  ) {
    await writeFile(path.join(dir, 'evals', `${runId}.yaml`), evalYaml);
    const results: EvaluationResult[] = [];
    await evaluate({
      evalFiles: [`evals/${runId}.yaml`],
      providers,
      cwd: dir,
      targetDefinitions: [{ name: 'agent', provider: 'cli', max_retries: 0, ...target }],
      target: 'agent',
      workers,
      workspaceRoot: root,
      sandboxRuntime: await testRuntime(),
      onResult: (result) => {
        results.push(result);
      },
    });
    return results.sort((a, b) => a.evalId.localeCompare(b.evalId));
  }

  it('pooled: the agent and hooks run in /workspace of one container per slot, removed at the end', async () => {
    const cases = ['a', 'b', 'c', 'd']
      .map(
        (id) => `  - id: ${id}
    input_messages: [{ role: user, content: "write ${id}" }]
    evaluators:
      - { name: wrote, type: file, path: ${id}.txt, equals: "${id}" }
      - { name: hooked, type: file, path: before.txt, contains: "/workspace" }
`,
      )
      .join('');
    const results = await run(
      `workspace:
  template: ./app
  docker: { image: ${TEST_IMAGE} }
  hooks:
    before_each: { command: 'echo "$AGENTV_WORKSPACE $AGENTV_EVAL_ID" > before.txt' }
evalcases:
${cases}`,
      {
        command_template:
          'printf %s "$AGENTV_EVAL_ID" > "$AGENTV_EVAL_ID.txt"; echo "{\\"text\\": \\"$(pwd) $(cat /etc/hostname) {WORKSPACE} $(cat task.txt)\\"}"',
      },
      'pooled-run',
    );
    expect(results.map((result) => [result.evalId, result.passed, result.error])).toEqual([
      ['a', true, undefined],
      ['b', true, undefined],
      ['c', true, undefined],
      ['d', true, undefined],
    ]);
    const answers = results.map((result) => result.candidateAnswer.split(' '));
    for (const [cwd, , workspace, task] of answers) {
      expect([cwd, workspace, task]).toEqual(['/workspace', '/workspace', 'fix']);
    }
    // Two worker slots: at most two containers served the four cases.
    expect(new Set(answers.map((answer) => answer[1])).size).toBeLessThanOrEqual(2);
    for (const result of results) expect(result.workspace?.filesChanged).toBe(1);
    expect(await containersOf('pooled-run')).toEqual([]);
  });

  it('passes prompt, input and output files and the case files through the exchange folder', async () => {
    const results = await run(
      `workspace:
  mode: temp
  docker: { image: ${TEST_IMAGE} }
evalcases:
  - id: files
    input_messages:
      - role: user
        content:
          - { type: text, value: "read the notes" }
          - { type: file, value: ./notes.md }
    evaluators:
      - { name: answer, type: contains, value: "the notes" }
`,
      {
        command_template:
          'cat {PROMPT_FILE} > /dev/null && grep -q files {INPUT_FILE} && cat {FILES} > {OUTPUT_FILE}',
      },
      'files-run',
      1,
    );
    expect(results.map((result) => [result.evalId, result.error, result.candidateAnswer])).toEqual([
      ['files', undefined, 'the notes'],
    ]);
    expect(await containersOf('files-run')).toEqual([]);
  });

  it('graders: command runs in the container by default, code_judge on this machine unless in_sandbox', async () => {
    await mkdir(path.join(dir, 'evals', 'judges'), { recursive: true });
    await writeFile(
      path.join(dir, 'evals', 'judges', 'where.sh'),
      '#!/bin/sh\nread -r payload\ncase "$payload" in *\'"workspace_path":"/workspace"\'*) w=yes;; *) w=no;; esac\necho "{\\"score\\": 1, \\"hits\\": [\\"$(pwd) $w $AGENTV_WORKSPACE\\"]}"\n',
      { mode: 0o755 },
    );
    const results = await run(
      `workspace:
  docker: { image: ${TEST_IMAGE} }
  hooks:
    before_all: { command: 'touch PREPARED' }
evalcases:
  - id: graders
    input_messages: [{ role: user, content: hi }]
    evaluators:
      - { name: inside, type: command, command: 'test -f /.dockerenv && test "$AGENTV_WORKSPACE" = /workspace && test -f PREPARED && test "$(pwd)" = /workspace' }
      - { name: host, type: command, in_sandbox: false, command: 'test "$(pwd)" != /workspace && test "$AGENTV_WORKSPACE" = "$(pwd)"' }
      - { name: judge-in, type: code_judge, in_sandbox: true, script: ./judges/where.sh }
      - { name: judge-host, type: code_judge, script: ./judges/where.sh }
`,
      { command_template: 'echo hi' },
      'graders-run',
      1,
    );
    const [result] = results;
    expect(result?.error).toBeUndefined();
    const scores = Object.fromEntries(
      (result?.evaluatorResults ?? []).map((score) => [
        score.name,
        [score.score, score.hits.join(' ')],
      ]),
    );
    expect(scores.inside?.[0]).toBe(1);
    expect(scores.host?.[0]).toBe(1);
    expect(scores['judge-in']).toEqual([1, '/workspace yes /workspace']);
    expect(String(scores['judge-host']?.[1])).toMatch(/^\/.*workspace-\d+ no \//);
    expect(await containersOf('graders-run')).toEqual([]);
  });

  it('shared isolation: one container for every case; a batch is one exec in it', async () => {
    const cases = ['a', 'b', 'c']
      .map(
        (id) => `  - id: ${id}
    input_messages: [{ role: user, content: ${id} }]
    evaluators: [{ name: any, type: regex, pattern: "." }]
`,
      )
      .join('');
    const yaml = `workspace:
  isolation: shared
  docker: { image: ${TEST_IMAGE} }
evalcases:
${cases}`;
    const single = await run(
      yaml,
      { command_template: 'echo "$(cat /etc/hostname) $(pwd)"' },
      'shared-run',
      2,
    );
    const hosts = new Set(single.map((result) => result.candidateAnswer));
    expect(hosts.size).toBe(1);
    expect([...hosts][0]).toMatch(/ \/workspace$/);
    // Batch mode: the bundle in {INPUT_FILE}, the answers in {OUTPUT_FILE}, both through /agentv.
    const batched = await run(
      yaml,
      {
        provider_batching: true,
        command_template:
          'test "$(pwd)" = /workspace && while read -r line; do id=$(echo "$line" | grep -o \'"id": *"[a-z]"\' | grep -o \'"[a-z]"$\'); echo "{\\"id\\": $id, \\"text\\": \\"$(cat /etc/hostname)\\"}"; done < {INPUT_FILE} > {OUTPUT_FILE}',
      },
      'batch-run',
      2,
    );
    expect(batched.map((result) => [result.evalId, result.error])).toEqual([
      ['a', undefined],
      ['b', undefined],
      ['c', undefined],
    ]);
    expect(new Set(batched.map((result) => result.candidateAnswer)).size).toBe(1);
    expect(await containersOf('batch-run')).toEqual([]);
  });

  it('temp mode: a failed case keeps its folder, not its container', async () => {
    const kept: string[] = [];
    await writeFile(
      path.join(dir, 'evals', 'kept-run.yaml'),
      `workspace:
  mode: temp
  template: ./app
  docker: { image: ${TEST_IMAGE} }
evalcases:
  - id: fails
    input_messages: [{ role: user, content: hi }]
    evaluators: [{ name: never, type: contains, value: "not said" }]
`,
    );
    await evaluate({
      evalFiles: ['evals/kept-run.yaml'],
      providers,
      cwd: dir,
      targetDefinitions: [
        { name: 'agent', provider: 'cli', command_template: 'echo done > out.txt; echo hi' },
      ],
      target: 'agent',
      workspaceRoot: root,
      sandboxRuntime: await testRuntime(),
      onWorkspaceKept: (folder) => {
        kept.push(folder);
      },
    });
    expect(kept).toHaveLength(1);
    expect(await readFile(path.join(kept[0]!, 'out.txt'), 'utf8')).toBe('done\n');
    expect(await containersOf('kept-run')).toEqual([]);
  });

  it('after_each and after_all run in the container; docker.timeout and max_output_bytes hold', async () => {
    await mkdir(path.join(dir, 'evals', 'out'), { recursive: true });
    const results = await run(
      `workspace:
  docker:
    image: ${TEST_IMAGE}
    timeout: 6
    mounts: [{ source: ./out, target: /out }]
  hooks:
    after_each: { command: 'echo "$AGENTV_EVAL_ID $(pwd)" >> /out/after-each.txt' }
    after_all: { command: 'echo "$(pwd)" > /out/after-all.txt' }
evalcases:
  - id: a-slow
    input_messages: [{ role: user, content: slow }]
    evaluators: [{ name: any, type: regex, pattern: "." }]
  - id: b-long
    input_messages: [{ role: user, content: long }]
    evaluators: [{ name: any, type: regex, pattern: "." }]
`,
      {
        max_output_bytes: 1000,
        command_template:
          'if [ {PROMPT} = slow ]; then sleep 60; fi; head -c 5000 /dev/zero | tr "\\\\0" x',
      },
      'after-run',
      1,
    );
    expect(results[0]?.error).toMatch(/timed out/);
    expect(results[1]?.error).toMatch(/max_output_bytes/);
    const afterEach = await readFile(path.join(dir, 'evals', 'out', 'after-each.txt'), 'utf8');
    expect(afterEach.split('\n').sort()).toEqual(['', 'a-slow /workspace', 'b-long /workspace']);
    expect(await readFile(path.join(dir, 'evals', 'out', 'after-all.txt'), 'utf8')).toBe(
      '/workspace\n',
    );
    expect(await containersOf('after-run')).toEqual([]);
  });

  it('a case killed for memory errors with the limit; the next case of the slot runs', async () => {
    const results = await run(
      `workspace:
  docker: { image: ${TEST_IMAGE}, memory: 16m }
evalcases:
  - id: a-hog
    input_messages: [{ role: user, content: hog }]
    evaluators: [{ name: any, type: regex, pattern: "." }]
  - id: b-calm
    input_messages: [{ role: user, content: calm }]
    evaluators: [{ name: any, type: contains, value: calm }]
`,
      {
        command_template:
          // dd reads into one buffer of 64 MiB: four times the limit.
          'if [ {PROMPT} = hog ]; then exec dd if=/dev/zero of=/dev/null bs=64M count=1; fi; echo {PROMPT}',
      },
      'oom-run',
      1,
    );
    expect(results[0]?.error).toMatch(/out of memory \(limit 16m\)/);
    expect(results[1]).toMatchObject({ evalId: 'b-calm', passed: true });
    expect(await containersOf('oom-run')).toEqual([]);
  });

  it('a container that died is replaced for the next case of its slot', async () => {
    const results = await run(
      thenAfter('a-stop', 'stop'),
      // PID 1 (the container's init) ends on SIGTERM, and the container with it.
      {
        command_template: 'if [ {PROMPT} = stop ]; then kill -TERM 1; sleep 30; fi; echo {PROMPT}',
      },
      'died-run',
      1,
    );
    // The agent's own container went away under it: the case errors, saying so whichever of the
    // engine's answers came first (409, 500 "container not running", the exec's own end).
    expect(results[0]?.error).toMatch(
      /container \w{12} is not running: it stopped \(exit code \d+\) while running a process in it|exited with code 137/,
    );
    expect(results[1]).toMatchObject({ evalId: 'b-after', passed: true });
    expect(results[1]?.error).toBeUndefined();
    expect(await containersOf('died-run')).toEqual([]);
  });

  it('a container removed from outside mid-case is said as removed, and replaced', async () => {
    const running = run(
      thenAfter('a-wait', 'wait'),
      { command_template: 'if [ {PROMPT} = wait ]; then sleep 30; fi; echo {PROMPT}' },
      'removed-run',
      1,
    );
    // As `docker rm -f` would, once the first case's agent is asleep in its container.
    const deadline = Date.now() + 20_000;
    let removed = false;
    while (!removed && Date.now() < deadline) {
      for (const info of await containersOf('removed-run')) {
        const top = await engine()
          .getContainer(info.Id)
          .top()
          .catch(() => ({ Processes: [] as string[][] }));
        if ((top.Processes ?? []).some((row: string[]) => row.join(' ').includes('sleep 30'))) {
          await engine().getContainer(info.Id).remove({ force: true });
          removed = true;
        }
      }
      if (!removed) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(removed).toBe(true);
    const results = await running;
    expect(results[0]?.error).toMatch(
      /^could not run the command in its container: container \w{12} was removed while running a process in it \(hint: something outside AgentV removed it/,
    );
    expect(results[1]).toMatchObject({ evalId: 'b-after', passed: true });
    expect(await containersOf('removed-run')).toEqual([]);
  });

  it('stops before the first case when the image is not on the engine, naming docker pull', async () => {
    const failure = await run(
      `workspace:
  docker: { image: agentv-test:missing }
evalcases:
  - id: a
    input_messages: [{ role: user, content: hi }]
    evaluators: [{ name: any, type: regex, pattern: "." }]
`,
      { command_template: 'echo hi' },
      'missing-run',
      1,
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/agentv-test:missing/);
    expect((failure as { hint?: string }).hint).toMatch(/docker pull agentv-test:missing/);
  });

  it('a run with a docker workspace and no runtime stops before its first case', async () => {
    await writeFile(
      path.join(dir, 'evals', 'no-runtime.yaml'),
      `workspace:
  docker: { image: ${TEST_IMAGE} }
evalcases:
  - id: a
    input_messages: [{ role: user, content: hi }]
    evaluators: [{ name: any, type: regex, pattern: "." }]
`,
    );
    const ran: string[] = [];
    const failure = await evaluate({
      evalFiles: ['evals/no-runtime.yaml'],
      providers,
      cwd: dir,
      targetDefinitions: [{ name: 'agent', provider: 'cli', command_template: 'echo hi' }],
      target: 'agent',
      onResult: (result) => {
        ran.push(result.evalId);
      },
    }).catch((error: unknown) => error);
    expect((failure as Error).message).toMatch(/no sandbox runtime/);
    expect(ran).toEqual([]);
    expect(await readFile(path.join(dir, 'evals', 'no-runtime.yaml'), 'utf8')).toContain('docker');
  });
  /**
   * A persistent agent in busybox sh: answers each request line with its case id, the
   * request's workspace, its own pid, how many lines it has answered and its container.
   */
  const PERSISTENT_AGENT = [
    'n=0',
    'while read -r line; do',
    '  n=$((n+1))',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
    '  id=${line#*\\"id\\":\\"}; id=${id%%\\"*}',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
    '  ws=${line#*\\"workspace\\":\\"}; ws=${ws%%\\"*}',
    '  case "$line" in *\\"id\\":\\"slow*) sleep 300 ;; *) ;; esac',
    '  echo "{\\"id\\":\\"$id\\",\\"text\\":\\"$id $ws $$ $n $(cat /etc/hostname) $(pwd)\\"}"',
    '  case "$id" in die*) exit 3 ;; esac',
    'done',
  ].join('\n');

  it('persistent: one agent per pooled container keeps its state across cases; sees /workspace', async () => {
    await writeFile(path.join(dir, 'evals', 'agent.sh'), PERSISTENT_AGENT);
    const cases = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6']
      .map(
        (id) => `  - id: ${id}
    input_messages: [{ role: user, content: "case ${id}" }]
    evaluators: [{ name: any, type: regex, pattern: "." }]
`,
      )
      .join('');
    const results = await run(
      `workspace:
  template: ./app
  docker: { image: ${TEST_IMAGE}, mounts: [{ source: ., target: /evals, read_only: true }] }
evalcases:
${cases}`,
      { mode: 'persistent', command_template: 'sh /evals/agent.sh' },
      'persistent-run',
      2,
    );
    expect(results.map((result) => [result.evalId, result.error])).toEqual(
      ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'].map((id) => [id, undefined]),
    );
    const answers = results.map((result) => result.candidateAnswer.split(' '));
    // Per container: one process, whose counter went up across its cases.
    const byContainer = new Map<string, { pids: Set<string>; counts: number[] }>();
    for (const [id, workspace, pid, count, host, cwd] of answers) {
      expect([workspace, cwd], id).toEqual(['/workspace', '/workspace']);
      const seen = byContainer.get(host!) ?? { pids: new Set(), counts: [] };
      seen.pids.add(pid!);
      seen.counts.push(Number(count));
      byContainer.set(host!, seen);
    }
    expect(byContainer.size).toBeLessThanOrEqual(2);
    for (const { pids, counts } of byContainer.values()) {
      expect(pids.size).toBe(1);
      expect(counts.sort()).toEqual(counts.map((_, index) => index + 1));
    }
    expect(await containersOf('persistent-run')).toEqual([]);
  });

  it('persistent: an agent that died is restarted in its container; a timeout is its case’s error', async () => {
    await writeFile(path.join(dir, 'evals', 'agent.sh'), PERSISTENT_AGENT);
    const results = await run(
      `workspace:
  template: ./app
  docker: { image: ${TEST_IMAGE}, mounts: [{ source: ., target: /evals, read_only: true }] }
evalcases:
  - { id: a1, input_messages: [{ role: user, content: a }], evaluators: [{ name: any, type: regex, pattern: "." }] }
  - { id: die, input_messages: [{ role: user, content: d }], evaluators: [{ name: any, type: regex, pattern: "." }] }
  - { id: b1, input_messages: [{ role: user, content: b }], evaluators: [{ name: any, type: regex, pattern: "." }] }
  - { id: slow, input_messages: [{ role: user, content: s }], evaluators: [{ name: any, type: regex, pattern: "." }] }
  - { id: z1, input_messages: [{ role: user, content: z }], evaluators: [{ name: any, type: regex, pattern: "." }] }
`,
      // A retry covers a case sent just as the agent exits (its end is seen after the line).
      {
        mode: 'persistent',
        command_template: 'sh /evals/agent.sh',
        timeout_seconds: 6,
        max_retries: 1,
      },
      'persistent-restart',
      1,
    );
    const byId = Object.fromEntries(results.map((result) => [result.evalId, result]));
    const answer = (id: string) => byId[id]!.candidateAnswer.split(' ');
    for (const id of ['a1', 'die', 'b1', 'z1']) expect(byId[id]?.error, id).toBeUndefined();
    // The agent exited after answering `die`: a new one (first line) answers b1 in the same container.
    expect(answer('die')[3]).toBe('2');
    expect(answer('b1')[3]).toBe('1');
    expect(answer('b1')[4]).toBe(answer('a1')[4]);
    expect(answer('b1')[2]).not.toBe(answer('a1')[2]);
    expect(byId.slow?.error).toMatch(/timed out after 6s[\s\S]*killed/);
    // After the timeout a new agent answers the next case.
    expect(answer('z1')[3]).toBe('1');
    expect(await containersOf('persistent-restart')).toEqual([]);
  });
  it.each([
    ['1000:1000', 'numeric-user'],
    ['agent', 'named-user'],
  ])(
    'docker.user %s writes the workspace, pooled case after case (reset restores root-owned files)',
    async (user, runId) => {
      const cases = ['u1', 'u2', 'u3']
        .map(
          (id) => `  - id: ${id}
    input_messages: [{ role: user, content: "${id}" }]
    evaluators:
      - { name: wrote, type: file, path: ${id}.txt, equals: "${id}" }
`,
        )
        .join('');
      const results = await run(
        `workspace:
  template: ./app
  docker: { image: ${TEST_IMAGE}, user: "${user}" }
evalcases:
${cases}`,
        {
          command_template:
            'printf %s "$AGENTV_EVAL_ID" > "$AGENTV_EVAL_ID.txt" && echo more >> task.txt && mkdir -p sub && touch sub/x && echo "$(id -u):$(id -g) $(ls | tr "\\n" " ")"',
        },
        runId,
        1,
      );
      for (const result of results) {
        expect([result.evalId, result.error, result.passed]).toEqual([
          result.evalId,
          undefined,
          true,
        ]);
        // Each case sees the pristine workspace: its own file, never the previous case's.
        const [ids, ...files] = result.candidateAnswer.trim().split(' ');
        expect(ids).toBe('1000:1000');
        expect(files.sort()).toEqual(['sub', 'task.txt', `${result.evalId}.txt`].sort());
      }
      expect(await containersOf(runId)).toEqual([]);
    },
  );
});
