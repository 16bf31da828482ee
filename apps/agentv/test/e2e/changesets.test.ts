import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  mustRun,
  WORKSPACE_ROOT,
  type WorkspacePackage,
  workspacePackages,
} from '../support/packed-packages.js';

// What a maintainer's release does first (`pnpm changeset version`, as the release workflow's
// changesets action runs it), on a copy of the manifests and the changeset config with one
// changeset of the test's own (the repository's pending ones come and go with releases):
// each package gets its own version and CHANGELOG, and dependents follow their dependencies.

const CHANGESET = `---
"@agentv/core": minor
---

A change to core that every other package depends on.
`;

let copy: string;
let packages: WorkspacePackage[];

beforeAll(async () => {
  copy = await mkdtemp(path.join(tmpdir(), 'agentv-changesets-'));
  packages = await workspacePackages();
  for (const file of ['package.json', 'pnpm-workspace.yaml', '.changeset/config.json']) {
    await cp(path.join(WORKSPACE_ROOT, file), path.join(copy, file), { recursive: true });
  }
  await writeFile(path.join(copy, '.changeset', 'core-change.md'), CHANGESET);
  for (const pkg of packages) {
    const dir = path.join(copy, path.relative(WORKSPACE_ROOT, pkg.dir));
    await mkdir(dir, { recursive: true });
    await cp(path.join(pkg.dir, 'package.json'), path.join(dir, 'package.json'));
  }
  await symlink(path.join(WORKSPACE_ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  const bin = path.join(WORKSPACE_ROOT, 'node_modules', '@changesets', 'cli', 'bin.js');
  await mustRun(process.execPath, [bin, 'version'], { cwd: copy });
}, 120_000);

afterAll(async () => {
  if (copy) await rm(copy, { recursive: true, force: true });
});

/** `major.minor.patch` as numbers. */
const parts = (version: string) => version.split('.').map(Number);

describe('pnpm changeset version', () => {
  it('gives each package its own version and CHANGELOG; dependents of core get a patch', async () => {
    const core = packages.find((pkg) => pkg.name === '@agentv/core')!;
    const coreVersion = `${parts(core.version)[0]}.${parts(core.version)[1]! + 1}.0`;
    for (const pkg of packages) {
      const dir = path.join(copy, path.relative(WORKSPACE_ROOT, pkg.dir));
      const manifest = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'));
      const [major, minor, patch] = parts(pkg.version);
      const expected =
        pkg.name === '@agentv/core'
          ? `${major}.${minor! + 1}.0`
          : `${major}.${minor}.${patch! + 1}`;
      expect(manifest.version, pkg.name).toBe(expected);
      const changelog = await readFile(path.join(dir, 'CHANGELOG.md'), 'utf8');
      expect(changelog.split('\n')[0], pkg.name).toBe(`# ${pkg.name}`);
      expect(changelog, pkg.name).toContain(`\n## ${expected}\n`);
      if (pkg.name === '@agentv/core') {
        expect(changelog).toContain('- A change to core that every other package depends on.');
      } else {
        expect(changelog, pkg.name).toContain(`- Updated dependencies\n`);
        expect(changelog, pkg.name).toContain(`  - @agentv/core@${coreVersion}\n`);
      }
      // Internal dependencies stay workspace ranges; pnpm writes the versions when packing.
      for (const [name, range] of Object.entries<string>(manifest.dependencies ?? {})) {
        if (name.startsWith('@agentv/'))
          expect(range, `${pkg.name} → ${name}`).toMatch(/^workspace:/);
      }
    }
    const left = (await readdir(path.join(copy, '.changeset'))).filter((file) =>
      file.endsWith('.md'),
    );
    expect(left).toEqual([]);
  });
});
