import { runProcess } from '@agentv/core/provider-utils';
import type { AgentAdapter } from './agent-adapter.js';

/** `a` compared with `b` as dotted numeric versions (`0.169.0`): negative, zero or positive. */
export function compareVersions(a: string, b: string): number {
  const parts = (version: string) =>
    version.split(/[.+-]/).map((part) => Number.parseInt(part, 10));
  const left = parts(a);
  const right = parts(b);
  for (let index = 0; index < 3; index++) {
    const difference = (left[index] || 0) - (right[index] || 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** The version a CLI reports; undefined when `--version` failed or printed none the adapter reads. */
export async function readAgentVersion(
  adapter: AgentAdapter,
  executable: string,
  env: Record<string, string>,
  cwd: string,
): Promise<string | undefined> {
  const outcome = await runProcess({
    command: [executable, '--version'],
    cwd,
    env,
    timeoutMs: 30_000,
    maxStdoutBytes: 64 * 1024,
    maxStderrBytes: 64 * 1024,
  });
  if (outcome.exitCode !== 0) return undefined;
  return adapter.parseVersion(`${outcome.stdout}\n${outcome.stderr}`);
}
