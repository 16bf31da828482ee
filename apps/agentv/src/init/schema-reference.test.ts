import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { schemaReference } from './schema-reference.js';

const require = createRequire(import.meta.url);
let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('schemaReference', () => {
  it('points at @agentv/core in the node_modules of the project or a parent folder', async () => {
    dir = await realpath(await mkdtemp(path.join(tmpdir(), 'agentv-schema-ref-')));
    const schemas = path.join(dir, 'node_modules', '@agentv', 'core', 'schemas');
    await mkdir(schemas, { recursive: true });
    await writeFile(path.join(schemas, 'eval.schema.json'), '{}');
    const project = path.join(dir, 'packages', 'app');
    expect(await schemaReference('eval.schema.json', path.join(project, 'evals'), project)).toBe(
      '../../../node_modules/@agentv/core/schemas/eval.schema.json',
    );
    expect(await schemaReference('eval.schema.json', dir, dir)).toBe(
      './node_modules/@agentv/core/schemas/eval.schema.json',
    );
  });

  it('points at the schema this CLI ships when the project is in the same repository', async () => {
    const shipped = require.resolve('@agentv/core/schemas/targets.schema.json');
    // A folder of the AgentV repository (whose root holds .git) with no @agentv/core in any
    // node_modules above it; the app's own node_modules would be found first.
    const project = path.join(import.meta.dirname, '..', '..', '..', '..', 'examples');
    const reference = await schemaReference('targets.schema.json', project, project);
    expect(path.resolve(project, reference)).toBe(shipped);
  });

  it('falls back to the published file, pinned to this version', async () => {
    dir = await realpath(await mkdtemp(path.join(tmpdir(), 'agentv-schema-ref-')));
    const { version } = require('@agentv/core/package.json') as { version: string };
    expect(await schemaReference('config.schema.json', dir, dir)).toBe(
      `https://unpkg.com/@agentv/core@${version}/schemas/config.schema.json`,
    );
  });
});
