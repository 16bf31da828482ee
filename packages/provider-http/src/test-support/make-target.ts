import type { ResolvedTarget } from '@agentv/core/provider-utils';

/** An `http` target as the loader resolves it. */
export function makeTarget(
  settings: Record<string, unknown>,
  common: Partial<ResolvedTarget> = {},
): ResolvedTarget {
  return {
    name: 'agent',
    provider: 'http',
    settings,
    filePath: '/project/.agentv/targets.yaml',
    baseDir: '/project',
    line: 3,
    ...common,
  };
}
