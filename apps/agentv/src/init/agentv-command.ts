import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { shellWord } from '@agentv/core/provider-utils';

/**
 * The command that runs this AgentV from `dir`: `npx agentv` when the project `npx` would look in
 * (the nearest folder at or above `dir` with a `package.json` or a `node_modules`, as npm finds
 * it) has this same AgentV installed, else `node <this bin>`. Until AgentV 5 is on npm,
 * `npx agentv` where it is not installed fetches upstream AgentV 4.x, another tool.
 */
export async function agentvCommandFor(dir: string, bin = process.argv[1] ?? ''): Promise<string> {
  const self = await realpath(bin).catch(() => path.resolve(bin));
  // bin/agentv.cjs of the package.
  const packageRoot = path.dirname(path.dirname(self));
  const project = await npmProjectOf(path.resolve(dir));
  if (project !== undefined) {
    const installed = await realpath(path.join(project, 'node_modules', 'agentv')).catch(
      () => undefined,
    );
    if (installed === packageRoot) return 'npx agentv';
  }
  return `node ${commandWord(self)}`;
}

/** The folder npm takes for the project of `dir`: the nearest with a package.json or node_modules. */
async function npmProjectOf(dir: string): Promise<string | undefined> {
  for (let at = dir; ; at = path.dirname(at)) {
    for (const marker of ['package.json', 'node_modules']) {
      if ((await stat(path.join(at, marker)).catch(() => undefined)) !== undefined) return at;
    }
    if (path.dirname(at) === at) return undefined;
  }
}

/**
 * `text` as one word of a command line printed for the user's shell: POSIX quoting
 * (`shellWord`), or on Windows double quotes around a path with spaces (cmd.exe and PowerShell
 * both read them; backslashes are plain there).
 */
export function commandWord(text: string, platform = process.platform): string {
  if (platform !== 'win32') return shellWord(text);
  return /^[\w@%+=:,.\\/-]+$/.test(text) ? text : `"${text}"`;
}
