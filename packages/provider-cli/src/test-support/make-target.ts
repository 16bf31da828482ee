import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResolvedTarget } from '@agentv/core/provider-utils';

/** A `provider: cli` target as the loader would resolve it, defined in a file under `baseDir`. */
export function makeTarget(
  settings: Record<string, unknown>,
  overrides: Partial<ResolvedTarget> = {},
): ResolvedTarget {
  const baseDir = overrides.baseDir ?? tmpdir();
  return {
    name: 'my_agent',
    provider: 'cli',
    settings: { provider: 'cli', ...settings },
    filePath: join(baseDir, '.agentv', 'targets.yaml'),
    baseDir,
    ...overrides,
  };
}
