import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir } from '@agentv/core/provider-utils';
import type { AgentHome } from './agent-adapter.js';

/**
 * Makes the folders of one call's config home in a new private temp folder: `home`, `tmp` and
 * the four XDG folders, with the environment that points the agent at them.
 */
export async function createAgentHome(kind: string): Promise<AgentHome> {
  const root = await makeTempDir(`${kind}-home`);
  const at = (name: string) => path.join(root, name);
  const home: AgentHome = {
    root,
    home: at('home'),
    tmp: at('tmp'),
    xdg: { config: at('config'), data: at('data'), cache: at('cache'), state: at('state') },
    env: {},
  };
  await Promise.all(
    [home.home, home.tmp, ...Object.values(home.xdg)].map((dir) => mkdir(dir, { recursive: true })),
  );
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
  await rm(home.root, { recursive: true, force: true, maxRetries: 2 }).catch(() => {});
}
