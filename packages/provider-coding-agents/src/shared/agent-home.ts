import { mkdirSync, mkdtempSync } from 'node:fs';
import { chmod, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirSync, removeFolder } from '@agentv/core/provider-utils';
import type { AgentHome } from './agent-adapter.js';

/**
 * Makes the folders of one call's config home in a new private temp folder (or a new folder in
 * `parent`, a sandbox's exchange folder): `home`, `tmp` and the four XDG folders, with the
 * environment that points the agent at them.
 */
export async function createAgentHome(kind: string, parent?: string): Promise<AgentHome> {
  return createAgentHomeSync(kind, parent);
}

/** `createAgentHome`, synchronously. */
export function createAgentHomeSync(kind: string, parent?: string): AgentHome {
  // Synchronous: seven small calls on the way to the agent's start, each of which would
  // otherwise wait for a turn of the event loop (on a busy machine, milliseconds each).
  const root =
    parent === undefined
      ? makeTempDirSync(`${kind}-home`)
      : mkdtempSync(path.join(parent, `${kind}-home-`));
  const at = (name: string) => path.join(root, name);
  const home: AgentHome = {
    root,
    home: at('home'),
    tmp: at('tmp'),
    xdg: { config: at('config'), data: at('data'), cache: at('cache'), state: at('state') },
    env: {},
  };
  for (const dir of [home.home, home.tmp, ...Object.values(home.xdg)]) mkdirSync(dir);
  home.env = {
    HOME: home.home,
    TMPDIR: home.tmp,
    XDG_CONFIG_HOME: home.xdg.config,
    XDG_DATA_HOME: home.xdg.data,
    XDG_CACHE_HOME: home.xdg.cache,
    XDG_STATE_HOME: home.xdg.state,
  };
  return home;
}

/** Removes a call's config home. Never rejects: a folder left behind is swept by the next run. */
export async function removeAgentHome(home: AgentHome): Promise<void> {
  // `removeFolder` first: half the CPU time of `rm` for the hundred files Codex leaves.
  await removeFolder(home.root)
    .catch(() => rm(home.root, { recursive: true, force: true, maxRetries: 2 }))
    .catch(() => {});
}

/**
 * Lets any user read and write everything in a config home made in a sandbox's exchange folder:
 * the image's user (`docker.user`) is not this machine's, and the agent writes its state there.
 */
export async function openAgentHome(dir: string): Promise<void> {
  await chmod(dir, 0o777);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const child = path.join(dir, entry.name);
    if (entry.isDirectory()) await openAgentHome(child);
    else if (entry.isFile()) await chmod(child, 0o666);
  }
}
