import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { type CliRun, parseJsonl, runAgentv } from './project.js';

// What the coding-agent e2e tests share: a copy of examples/coding-agents pointed at a scripted
// model server, an eval of its three tasks, and a look for processes left running.

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The example every coding agent is run on: three tasks graded by the repository's tests. */
export const CODING_AGENTS_EXAMPLE = path.join(ROOT, 'examples/coding-agents');

/** The example's case ids. */
export const CODING_TASKS = ['fix-slugify', 'implement-word-count', 'create-capitalize'] as const;

/** A run of `agentv eval` on the example, with its result lines by case id. */
export interface ExampleRun extends CliRun {
  /** The results file. */
  out: string;
  // biome-ignore lint/suspicious/noExplicitAny: result lines are read as JSON
  byId: Record<string, any>;
}

/** The scratch folders of one test file: copies of the example, removed by `remove`. */
export interface CodingAgentScratch {
  /**
   * A copy of the example whose `.agentv/targets.yaml` holds one target, `name`, with
   * `settings` (undefined values left out).
   */
  exampleWith(name: string, settings: Record<string, unknown>): Promise<string>;
  /** An empty folder of the scratch (for `agentv init`). */
  folder(prefix: string): Promise<string>;
  remove(): Promise<void>;
}

export function codingAgentScratch(prefix: string): CodingAgentScratch {
  let scratch: string | undefined;
  const folder = async (name: string) => {
    scratch ??= await mkdtemp(path.join(tmpdir(), `agentv-${prefix}-`));
    return mkdtemp(path.join(scratch, `${name}-`));
  };
  return {
    folder,
    async exampleWith(name, settings) {
      const dir = await folder('example');
      await cp(CODING_AGENTS_EXAMPLE, dir, { recursive: true });
      const lines = Object.entries(settings)
        .filter(([, value]) => value !== undefined)
        .map(([key, value]) => `    ${key}: ${JSON.stringify(value)}`);
      await writeFile(
        path.join(dir, '.agentv/targets.yaml'),
        `targets:\n  - name: ${name}\n${lines.join('\n')}\n`,
      );
      return dir;
    },
    async remove() {
      if (scratch) await rm(scratch, { recursive: true, force: true });
    },
  };
}

/**
 * `agentv eval evals` in a copy of the example against `target`, three workers, traces in the
 * results; failed cases keep their workspaces inside the copy (removed with the scratch).
 */
export async function evalExample(
  dir: string,
  target: string,
  env: Record<string, string>,
  extra: string[] = [],
): Promise<ExampleRun> {
  const out = path.join(dir, 'out.jsonl');
  const run = await runAgentv(
    [
      'eval',
      'evals',
      '--target',
      target,
      '--out',
      out,
      '--include-trace',
      '--workers',
      '3',
      '--workspace-root',
      path.join(dir, 'workspaces'),
      ...extra,
    ],
    dir,
    env,
  );
  const lines = parseJsonl(await readFile(out, 'utf8').catch(() => ''));
  return { ...run, out, byId: Object.fromEntries(lines.map((line) => [line.eval_id, line])) };
}

/** `name/raw_name` of each tool call in a result line's trace. */
export function toolCalls(line: { trace: { type: string; name: string; raw_name: string }[] }) {
  return line.trace
    .filter((event) => event.type === 'tool_call')
    .map((event) => `${event.name}/${event.raw_name}`);
}

/** Processes other than this one whose command line (or, with `environ`, environment) holds `text`. */
export async function processesWith(
  text: string,
  where: 'cmdline' | 'environ' = 'cmdline',
): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    const content = await readFile(`/proc/${pid}/${where}`, 'utf8').catch(() => '');
    if (!content.includes(text)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    found.push(`${pid}: ${cmdline.replaceAll('\0', ' ')}`);
  }
  return found;
}

/**
 * `agentv validate` in `root` with `env`, a machine where the agent of target `name` is not
 * installed (`agent` is its display name, `command` its executable): a warning while no eval
 * file uses the target (a targets file shared by machines), the error eval would stop on once
 * a run uses it (`--target`).
 */
export async function expectAgentMissingHere(
  root: string,
  name: string,
  agent: string,
  command: string,
  env: Record<string, string>,
): Promise<void> {
  const notInstalled = `${agent} is not installed`;
  const missing = await runAgentv(['validate'], root, env);
  expect(missing.code, missing.stdout).toBe(0);
  expect(missing.stdout).toContain(
    `target "${name}": provider: ${notInstalled}: "${command}" was not found on PATH`,
  );
  expect(missing.stdout).toMatch(new RegExp(`^warning: .*${notInstalled}`, 'm'));
  const used = await runAgentv(['validate', '--target', name], root, env);
  expect(used.code).toBe(1);
  expect(used.stdout).toMatch(new RegExp(`^error: .*${notInstalled}`, 'm'));
}
