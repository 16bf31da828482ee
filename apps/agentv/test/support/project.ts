import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/agentv.cjs', import.meta.url));

export interface Project {
  dir: string;
  file(relative: string): string;
  cleanup(): Promise<void>;
}

/** Creates a temp project (with a `.git` folder, so it is its own repository root) holding `files`. */
export async function createProject(files: Record<string, string>): Promise<Project> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentv-e2e-'));
  await mkdir(path.join(dir, '.git'));
  for (const [relative, content] of Object.entries(files)) {
    const target = path.join(dir, relative);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return {
    dir,
    file: (relative) => path.join(dir, relative),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns the built `agentv` binary in `cwd`. */
export function runAgentv(
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
): Promise<CliRun> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collectRun(child);
}

/** Collects a spawned process's stdout, stderr and exit code. */
export function collectRun(child: ChildProcess): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Parses a JSONL file's lines. */
// biome-ignore lint/suspicious/noExplicitAny: tests read result lines of a known shape
export function parseJsonl(content: string): Record<string, any>[] {
  return content
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

/** An agent that answers from its --prompt and writes {text, trace} to --out. */
export const ECHO_AGENT = `
import { writeFileSync } from 'node:fs';
const args = process.argv.slice(2);
const prompt = args[args.indexOf('--prompt') + 1];
const out = args[args.indexOf('--out') + 1];
const now = new Date().toISOString();
if (prompt.includes('crash')) { console.error('agent: cannot handle crash requests'); process.exit(3); }
writeFileSync(out, JSON.stringify({
  text: 'You said: ' + prompt,
  trace: [
    { type: 'tool_call', timestamp: now, name: 'echo', input: { prompt } },
    { type: 'tool_result', timestamp: now, name: 'echo', output: 'ok' },
  ],
}));
`;

export const ECHO_TARGETS = `
targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs --prompt {PROMPT} --out {OUTPUT_FILE}
    max_retries: 0
`;
