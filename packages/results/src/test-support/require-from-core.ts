import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Loads a dependency of `@agentv/core` (such as `yaml`) for tests. The results
 * package does not depend on it itself, and pnpm only links direct dependencies.
 */
export function requireFromCore<T>(name: string): T {
  const core = realpathSync(
    fileURLToPath(new URL('../../node_modules/@agentv/core/package.json', import.meta.url)),
  );
  return createRequire(core)(name) as T;
}
