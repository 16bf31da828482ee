import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { shellQuote } from '@agentv/core/provider-utils';

/**
 * The command that runs this AgentV from `dir`: `npx agentv` when `dir` (or a folder above it)
 * has this same AgentV installed in its `node_modules`, else `node <this bin>`. Until AgentV 5 is
 * on npm, `npx agentv` where it is not installed fetches upstream AgentV 4.x, another tool.
 */
export async function agentvCommandFor(dir: string, bin = process.argv[1] ?? ''): Promise<string> {
  const self = await realpath(bin).catch(() => path.resolve(bin));
  // bin/agentv.cjs of the package.
  const packageRoot = path.dirname(path.dirname(self));
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const installed = await realpath(path.join(at, 'node_modules', 'agentv')).catch(
      () => undefined,
    );
    // npx runs the nearest install: ours, or another AgentV that `npx agentv` would run instead.
    if (installed !== undefined) {
      if (installed === packageRoot) return 'npx agentv';
      break;
    }
    if (path.dirname(at) === at) break;
  }
  return `node ${shellWord(self)}`;
}

/** `text` as one POSIX shell word: as it is when plain, else single-quoted (`shellQuote`). */
export function shellWord(text: string): string {
  return /^[\w./:@%+=,-]+$/.test(text) ? text : shellQuote(text);
}
