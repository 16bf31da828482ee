import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResolvedTarget, WorkspaceConfig } from '@agentv/core/provider-utils';
import { describe, expect, it } from 'vitest';
import { checkCliUse } from './cli-provider-settings.js';

const workspace = (docker: boolean): WorkspaceConfig => ({
  isolation: 'per_case',
  mode: 'pooled',
  hooks: {},
  baseDir: '/project/evals',
  key: 'k',
  ...(docker
    ? { docker: { image: 'node:22', network: 'none', env: {}, mounts: [], readOnly: true } }
    : {}),
});

const target = (settings: Record<string, unknown>): ResolvedTarget => ({
  name: 'agent',
  provider: 'cli',
  settings,
  baseDir: tmpdir(),
  filePath: join(tmpdir(), 'targets.yaml'),
});

const evalFile = join(tmpdir(), 'e.yaml');

describe('checkCliUse with a workspace in a container', () => {
  it('does not look for the program on this machine: it runs in the image', () => {
    const cli = target({ command_template: 'agentv-no-such-program-here {PROMPT}' });
    expect(checkCliUse(cli, evalFile, 'run', workspace(true))).toEqual([]);
    // On this machine (no workspace): the same program is looked for here, and missing.
    const onHost = checkCliUse(cli, evalFile, 'run');
    expect(onHost.map((issue) => issue.severity)).toContain('error');
  });

  it('accepts mode: persistent, whose agent then starts in each container', () => {
    const persistent = target({ command_template: 'node agent.js', mode: 'persistent' });
    expect(checkCliUse(persistent, evalFile, 'validate', workspace(true))).toEqual([]);
  });
});
