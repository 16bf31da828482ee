import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { inject } from 'vitest';
import { BIN, createProject, type Project } from './project.js';

/** `DOCKER_HOST` of the docker tests' engine (test/support/docker-setup.ts); undefined when they skip. */
export const dockerHost = inject('dockerHost');

/** True when the tests that need the engine skip (`describe.skipIf(noEngine)`): not root, outside CI. */
export const noEngine = dockerHost === undefined;

/** Why the docker tests skip on this machine. */
export const skipReason = inject('dockerSkipReason');

/** The image of busybox applets every container test runs unless it needs Node. */
export const BUSYBOX_IMAGE = 'agentv-test:busybox';

/** Runs the `docker` CLI against the tests' engine; returns its stdout. */
export function docker(...args: string[]): string {
  return execFileSync('docker', args, {
    env: { ...process.env, DOCKER_HOST: dockerHost },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Ids of the containers AgentV made (label `agentv.run`), running or not; only
 * those of the AgentV process `pid` or of the run `runId` when given (the docker
 * tests run in parallel on one engine).
 */
export function agentvContainers(of: { pid?: number; runId?: string } = {}): string[] {
  const filters = [
    '--filter',
    of.runId === undefined ? 'label=agentv.run' : `label=agentv.run=${of.runId}`,
  ];
  if (of.pid !== undefined) filters.push('--filter', `label=agentv.pid=${of.pid}`);
  return docker('ps', '-a', '--quiet', ...filters)
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/**
 * A project whose cases run in containers: `evals/sandbox.yaml` holds `workspace`
 * (indented under the `workspace:` key, its `template: ./app` included) and `cases`; the
 * `default` target runs `command` (a shell string) in the container; `evals/app/` is the
 * template, with `files` added to the project.
 */
export async function sandboxProject(options: {
  command: string;
  workspace: string;
  cases: string;
  targetSettings?: string;
  files?: Record<string, string>;
}): Promise<Project> {
  return createProject({
    '.agentv/config.yaml': '',
    '.agentv/targets.yaml': `targets:
  - name: default
    provider: cli
    command_template: ${JSON.stringify(options.command)}
    max_retries: 0
${options.targetSettings ?? ''}`,
    'evals/app/README.md': '# app\n',
    'evals/sandbox.yaml': `workspace:
  template: ./app
${indent(options.workspace, 2)}
evalcases:
${indent(options.cases, 2)}
`,
    ...options.files,
  });
}

function indent(text: string, spaces: number): string {
  return text
    .trim()
    .split('\n')
    .map((line) => `${' '.repeat(spaces)}${line}`)
    .join('\n');
}

/** A case answered by the target's command, with `evaluators` (YAML lines). */
export function sandboxCase(id: string, evaluators = ''): string {
  const lines = [`- id: ${id}`, `  input_messages: [{ role: user, content: "case ${id}" }]`];
  if (evaluators.trim() !== '') {
    lines.push(
      '  evaluators:',
      ...evaluators
        .trim()
        .split('\n')
        .map((line) => `    ${line}`),
    );
  }
  return lines.join('\n');
}

/** The environment of an `agentv` run against the tests' engine. */
export function engineEnv(): Record<string, string | undefined> {
  return { CI: '1', NO_COLOR: '1', DOCKER_HOST: dockerHost };
}

/** Spawns `agentv eval` in `cwd` against the tests' engine; `closed` resolves its exit code. */
export function spawnEval(cwd: string, args: string[]) {
  const child = spawn(process.execPath, [BIN, 'eval', ...args], {
    cwd,
    env: { ...process.env, ...engineEnv() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdout.resume();
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, closed, stderr: () => stderr };
}

/** Whether a file named `name` exists anywhere under `dir`. */
export function fileUnder(dir: string, name: string): boolean {
  if (!existsSync(dir)) return false;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.name === name && entry.isFile()) return true;
  }
  return false;
}

/** Waits (polling) until `condition` holds; throws naming `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  condition: () => boolean,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
