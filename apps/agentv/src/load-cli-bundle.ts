import { fileURLToPath } from 'node:url';
import { compileCacheFolder } from './compile-cache/compile-cache-folder.js';
import { requireWithCompileCache } from './compile-cache/require-with-compile-cache.js';
import type { runCli } from './main.js';
import { readVersion } from './version.js';

/**
 * Loads the CLI's bundle (`bundle/cli.cjs`, see `scripts/bundle.mjs`) with V8's code cache
 * (`AGENTV_COMPILE_CACHE=0` turns the cache off) and returns its `runCli`.
 */
export function loadCliBundle(): { runCli: typeof runCli } {
  const entry = fileURLToPath(new URL('../bundle/cli.cjs', import.meta.url));
  return requireWithCompileCache(entry, compileCacheFolder(readVersion())) as {
    runCli: typeof runCli;
  };
}
