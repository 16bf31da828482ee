import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { findRepoRoot } from '@agentv/core/internal';

const require = createRequire(import.meta.url);

/** The JSON Schema files `@agentv/core` ships. */
export type SchemaName = 'eval.schema.json' | 'targets.schema.json' | 'config.schema.json';

/**
 * What to write after `$schema=` in a file in `fromDir` so YAML editors find
 * `name`, preferring paths that stay valid for everyone using the project:
 * 1. `@agentv/core` in a `node_modules` folder of the project or a parent
 *    (a local install of agentv), as a relative path;
 * 2. the copy this CLI runs from, as a relative path, when it lies inside
 *    the project's repository (working on AgentV itself);
 * 3. otherwise the published file on unpkg, pinned to this version.
 */
export async function schemaReference(
  name: SchemaName,
  fromDir: string,
  projectDir: string,
): Promise<string> {
  for (let dir = path.resolve(projectDir); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', '@agentv', 'core', 'schemas', name);
    if (await isFile(candidate)) return relativeReference(fromDir, candidate);
    if (path.dirname(dir) === dir) break;
  }
  const installed = installedSchema(name);
  const repoRoot = await findRepoRoot(projectDir);
  if (installed && repoRoot && !path.relative(repoRoot, installed).startsWith('..')) {
    return relativeReference(fromDir, installed);
  }
  return `https://unpkg.com/@agentv/core@${coreVersion()}/schemas/${name}`;
}

function relativeReference(fromDir: string, file: string): string {
  const relative = path.relative(fromDir, file).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
}

function installedSchema(name: SchemaName): string | undefined {
  try {
    return require.resolve(`@agentv/core/schemas/${name}`);
  } catch {
    return undefined;
  }
}

function coreVersion(): string {
  return (require('@agentv/core/package.json') as { version: string }).version;
}

async function isFile(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined))?.isFile() === true;
}
