import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Loads a dependency of one of the app's workspace packages, e.g. `yaml` (a
 * dependency of `@agentv/core`) or `playwright-core` (a dev dependency of
 * `@agentv/results`), for tests. pnpm links only a package's own dependencies,
 * and the app does not list these.
 */
export function requireFromWorkspacePackage<T>(workspacePackage: string, name: string): T {
  const manifest = realpathSync(
    fileURLToPath(new URL(`../../node_modules/${workspacePackage}/package.json`, import.meta.url)),
  );
  return createRequire(manifest)(name) as T;
}
