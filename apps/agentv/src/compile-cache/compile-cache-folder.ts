import { lstatSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/**
 * The folder that holds the CLI's code cache for this AgentV version, Node version and
 * architecture: `$XDG_CACHE_HOME/agentv/…` (an absolute XDG_CACHE_HOME only, as the XDG spec
 * says), else `~/.cache/agentv/…`, created 0700. Undefined, and the run goes without a cache,
 * when `AGENTV_COMPILE_CACHE=0`, when it cannot be created, or when it or `agentv/` is not a
 * folder of this user's that only they can write: cached bytecode is code AgentV runs.
 */
export function compileCacheFolder(
  version: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (env.AGENTV_COMPILE_CACHE === '0') return undefined;
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : homeCache();
  if (base === undefined) return undefined;
  const root = path.join(base, 'agentv');
  const folder = path.join(root, `v8-${version}-node${process.versions.node}-${process.arch}`);
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    return ownFolder(root) && ownFolder(folder) ? folder : undefined;
  } catch {
    return undefined;
  }
}

function homeCache(): string | undefined {
  try {
    const home = homedir();
    return home ? path.join(home, '.cache') : undefined;
  } catch {
    return undefined;
  }
}

/** A real folder (not a link) owned by this user, writable by no one else. */
function ownFolder(folder: string): boolean {
  const stat = lstatSync(folder);
  if (!stat.isDirectory()) return false;
  // Windows has no uids, and its modes say nothing about other users.
  if (process.getuid === undefined) return true;
  return stat.uid === process.getuid() && (stat.mode & 0o022) === 0;
}
