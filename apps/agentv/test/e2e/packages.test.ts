import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  mustRun,
  packWorkspace,
  runCommand,
  tarballFiles,
  tarballManifest,
  tarballName,
  type WorkspacePackage,
  workspacePackages,
} from '../support/packed-packages.js';
import { parseJsonl } from '../support/project.js';

// ---------------------------------------------------------------------------
// The library-API script (b): what a developer writes who installs
// @agentv/core and @agentv/provider-cli without the CLI. It runs the eval file
// below through the cli provider (a real /bin/sh command) and prints the
// results and the summary as JSON, through the one-call library API, evaluate().
// ---------------------------------------------------------------------------
const LIBRARY_SCRIPT = `
import { createProviderRegistry, evaluate } from '@agentv/core';
import { cliProviderFactory } from '@agentv/provider-cli';

const seen = [];
const { results, summary } = await evaluate({
  evalFiles: ['evals/echo.yaml'],
  providers: createProviderRegistry([cliProviderFactory]),
  onResult: (result) => seen.push(result.evalId),
});
console.log(JSON.stringify({ seen, results, summary }));
`;

// A script that runs one case through a provider written on @agentv/core/provider-utils
// (`echo-provider.mjs`, CONTRIBUTING's example) and prints the answer, or the problems found.
const PROVIDER_SCRIPT = `
import { createProviderRegistry, evaluate, formatIssue, isInvalidInputError } from '@agentv/core';
import { echoProviderFactory } from './echo-provider.mjs';

try {
  const { results } = await evaluate({
    evalFiles: ['evals/echo.yaml'],
    providers: createProviderRegistry([echoProviderFactory]),
  });
  for (const result of results) console.log(\`\${result.evalId}: \${result.candidateAnswer}\`);
} catch (error) {
  if (!isInvalidInputError(error)) throw error;
  console.error(error.issues.map(formatIssue).join('\\n'));
}
`;

const PROVIDER_EVAL = `evalcases:
  - id: hello
    input_messages: [{ role: user, content: say hello }]
    evaluators:
      - { name: echoes, type: contains, value: hello }
`;

/** A targets file whose one target is the echo provider's, with `setting`. */
const providerTargets = (setting: string) => `$schema: agentv-targets-v2.2
targets:
  - name: default
    provider: echo
    ${setting}
`;

const LIBRARY_TARGETS = `$schema: agentv-targets-v2.2
targets:
  - name: default
    provider: cli
    command_template: "printf 'You asked: %s' {PROMPT} > {OUTPUT_FILE}"
    max_retries: 0
`;

const LIBRARY_EVAL = `$schema: agentv-eval-v2
evalcases:
  - id: echo-quotes
    expected_outcome: The shell command repeats the question.
    input_messages: [{ role: user, content: "Is it 'quoted' & \\"safe\\"?" }]
    evaluators:
      - { name: repeats, type: contains, value: "You asked: Is it 'quoted' & \\"safe\\"?" }
`;

// Packing, installing from the registry's cache and running npx take a while on a busy machine.
const SLOW = 300_000;

let work: string;
let project: string;
let packages: WorkspacePackage[];
const tarballs = new Map<string, string>();

beforeAll(async () => {
  packages = await workspacePackages();
  work = await mkdtemp(path.join(tmpdir(), 'agentv-packages-e2e-'));
  const packed = path.join(work, 'tarballs');
  project = path.join(work, 'project');
  await mkdir(packed);
  await mkdir(project);
  const packedFiles = await packWorkspace(packed);
  for (const pkg of packages) tarballs.set(pkg.name, path.join(packed, tarballName(pkg)));
  // pnpm packs exactly the packages found here, no more, no fewer.
  expect(packedFiles).toEqual([...tarballs.values()].sort());

  // An empty project of someone who never cloned AgentV, installing every package by path:
  // our packages come from the tarballs, their third-party dependencies from the registry.
  await writeFile(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name: 'uses-agentv', private: true, type: 'module' }, null, 2)}\n`,
  );
  await mustRun(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs.values()],
    { cwd: project },
  );
}, SLOW);

afterAll(async () => {
  // The installed project holds thousands of files: removing them is slow on a busy machine.
  if (work) await rm(work, { recursive: true, force: true });
}, SLOW);

/** The file paths an `exports` map points at (its string leaves). */
function exportTargets(exports: unknown): string[] {
  if (typeof exports === 'string') return [exports];
  if (exports === null || typeof exports !== 'object') return [];
  return Object.values(exports).flatMap(exportTargets);
}

/** Runs `npx agentv …` in the project, offline, the way a user's shell would. */
function npxAgentv(args: string[], cwd = project) {
  return runCommand('npx', ['--offline', '--no-install', 'agentv', ...args], { cwd });
}

describe('the packed packages', () => {
  it('are discovered under packages/ and apps/, the CLI and every provider among them', () => {
    const names = packages.map((pkg) => pkg.name);
    expect(names).toEqual(
      expect.arrayContaining(['agentv', '@agentv/core', '@agentv/provider-cli']),
    );
    expect(names.length).toBeGreaterThanOrEqual(5);
  });

  it('hold only built code (no tests, sources or maps), schemas, README, LICENSE and package.json', async () => {
    for (const pkg of packages) {
      const files = await tarballFiles(tarballs.get(pkg.name) ?? '');
      expect(files, pkg.name).toEqual(
        expect.arrayContaining(['LICENSE', 'README.md', 'package.json']),
      );
      if (pkg.name === '@agentv/results') {
        expect(files).toContain('schemas/result-line.schema.json');
      }
      const unexpected = [];
      for (const file of files) {
        if (['LICENSE', 'README.md', 'package.json'].includes(file)) continue;
        if (file.startsWith('bin/') && pkg.manifest.bin) continue;
        const withSchemas = ['@agentv/core', '@agentv/results'];
        if (/^schemas\/[\w.-]+\.json$/.test(file) && withSchemas.includes(pkg.name)) continue;
        // The CLI's bundle (scripts/bundle.mjs): built from the same sources as its dist/.
        if (/^bundle\/[\w.-]+\.c?js$/.test(file) && pkg.name === 'agentv') continue;
        // The viewer's browser client (scripts/build-client.mjs), bundled from src/client/.
        if (/^dist\/client\/[\w.-]+\.(js|css|html)$/.test(file) && pkg.name === '@agentv/viewer') {
          continue;
        }
        const built = /^dist\/(.+?)(\.d\.ts|\.js)$/.exec(file);
        // Every built file comes from a source file that exists today and is not a test.
        const source = built && path.join(pkg.dir, 'src', `${built[1]}.ts`);
        if (source && !built[1]?.endsWith('.test') && (await readFile(source).catch(() => null))) {
          continue;
        }
        unexpected.push(file);
      }
      expect(unexpected, `${pkg.name}: files that do not belong in the tarball`).toEqual([]);
    }
  });

  it('ship a publishable package.json: exports that exist, engines, no workspace: ranges', async () => {
    const versions = new Map(packages.map((pkg) => [pkg.name, pkg.version]));
    for (const pkg of packages) {
      const tarball = tarballs.get(pkg.name) ?? '';
      const manifest = await tarballManifest(tarball);
      const files = new Set(await tarballFiles(tarball));
      expect(manifest.engines?.node, pkg.name).toBe('>=20.19');
      expect(manifest.license, pkg.name).toBe('MIT');
      expect(manifest.repository?.directory, pkg.name).toBe(
        path.relative(path.resolve(pkg.dir, '../..'), pkg.dir).split(path.sep).join('/'),
      );
      expect(manifest.description, pkg.name).toMatch(/\w/);
      expect(manifest.types && files.has(manifest.types.replace(/^\.\//, '')), pkg.name).toBe(true);
      if (pkg.name.startsWith('@')) expect(manifest.publishConfig?.access, pkg.name).toBe('public');

      for (const target of exportTargets(manifest.exports).filter((each) => !each.includes('*'))) {
        expect(files.has(target.replace(/^\.\//, '')), `${pkg.name} exports ${target}`).toBe(true);
      }
      expect(
        exportTargets((manifest.exports as Record<string, unknown>)['.']),
        pkg.name,
      ).toContainEqual(expect.stringMatching(/\.d\.ts$/));
      for (const bin of Object.values(manifest.bin ?? {})) {
        expect(files.has(bin.replace(/^\.\//, '')), `${pkg.name} bin ${bin}`).toBe(true);
      }

      for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
        for (const [name, range] of Object.entries(manifest[field] ?? {})) {
          expect(range, `${pkg.name} ${field}.${name}`).not.toMatch(/^workspace:/);
          if (versions.has(name)) expect(range, `${pkg.name} → ${name}`).toBe(versions.get(name));
        }
      }
    }
  });

  it('install with npm, every @agentv package from its tarball and none from the registry', async () => {
    const lock = JSON.parse(await readFile(path.join(project, 'package-lock.json'), 'utf8'));
    const ours = Object.entries<{ name?: string; resolved?: string }>(lock.packages).filter(
      ([key, entry]) =>
        packages.some((pkg) => key.endsWith(`node_modules/${pkg.name}`) || entry.name === pkg.name),
    );
    expect(ours.map(([key]) => key).sort()).toEqual(
      packages.map((pkg) => `node_modules/${pkg.name}`).sort(),
    );
    for (const [key, entry] of ours) expect(entry.resolved, key).toMatch(/^file:.*\.tgz$/);
  });
});

describe('in a project outside the repository', () => {
  it(
    'npx agentv init, then npx agentv eval on what it wrote, runs offline and passes',
    async () => {
      const version = await npxAgentv(['--version']);
      expect(version.stdout.trim()).toBe(packages.find((pkg) => pkg.name === 'agentv')?.version);

      const init = await npxAgentv(['init']);
      expect(init.code, init.stderr).toBe(0);
      expect(init.stdout).toContain('created     evals/example.yaml');
      expect(init.stdout).toContain('Next: npx agentv validate && npx agentv eval\n');
      // Editors find the schemas in the installed @agentv/core.
      const targets = await readFile(path.join(project, '.agentv/targets.yaml'), 'utf8');
      const schema = /\$schema=(\S+)/.exec(targets)?.[1] ?? '';
      expect(schema).toBe('../node_modules/@agentv/core/schemas/targets.schema.json');
      await expect(readFile(path.join(project, '.agentv', schema), 'utf8')).resolves.toMatch(/^\{/);

      const validate = await npxAgentv(['validate']);
      expect(validate.stdout).toBe('3 files checked: no errors\n');
      expect(validate.code).toBe(0);

      const run = await npxAgentv(['eval', '--out', 'results.jsonl']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('2 cases: 2 passed, 0 failed, 0 errored');
      const results = parseJsonl(await readFile(path.join(project, 'results.jsonl'), 'utf8'));
      expect(results.map((result) => [result.eval_id, result.passed]).sort()).toEqual([
        ['opening-hours', true],
        ['order-status', true],
      ]);
    },
    SLOW,
  );

  it(
    'a script imports @agentv/core and @agentv/provider-cli and runs one case with a real command',
    async () => {
      const dir = path.join(project, 'library-demo');
      await mkdir(path.join(dir, '.agentv'), { recursive: true });
      await mkdir(path.join(dir, 'evals'));
      await writeFile(path.join(dir, '.agentv/targets.yaml'), LIBRARY_TARGETS);
      await writeFile(path.join(dir, 'evals/echo.yaml'), LIBRARY_EVAL);
      await writeFile(path.join(dir, 'run.mjs'), LIBRARY_SCRIPT);

      const run = await runCommand(process.execPath, ['run.mjs'], { cwd: dir });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const { seen, results, summary } = JSON.parse(run.stdout);
      expect(seen).toEqual(['echo-quotes']);
      expect(summary).toMatchObject({ total: 1, passed: 1, failed: 0, errored: 0 });
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({
        evalId: 'echo-quotes',
        passed: true,
        candidateAnswer: `You asked: Is it 'quoted' & "safe"?`,
      });
    },
    SLOW,
  );

  it(
    'a provider written on @agentv/core/provider-utils, as CONTRIBUTING shows it, runs and reports located settings errors',
    async () => {
      // CONTRIBUTING's smallest provider, as written there; the project imports it from the installed tarball.
      const contributing = await readFile(
        fileURLToPath(new URL('../../../../CONTRIBUTING.md', import.meta.url)),
        'utf8',
      );
      const section = contributing.slice(contributing.indexOf('The smallest provider, whole'));
      const provider = /```js\n([\s\S]*?)```/.exec(section)?.[1];
      expect(provider).toContain("from '@agentv/core/provider-utils'");
      const dir = path.join(project, 'provider-demo');
      await mkdir(path.join(dir, '.agentv'), { recursive: true });
      await mkdir(path.join(dir, 'evals'));
      await writeFile(path.join(dir, 'echo-provider.mjs'), provider!);
      await writeFile(path.join(dir, 'evals/echo.yaml'), PROVIDER_EVAL);
      await writeFile(path.join(dir, 'run.mjs'), PROVIDER_SCRIPT);

      await writeFile(path.join(dir, '.agentv/targets.yaml'), providerTargets('reply: "echo"'));
      const run = await runCommand(process.execPath, ['run.mjs'], { cwd: dir });
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe('hello: echo: say hello\n');

      await writeFile(path.join(dir, '.agentv/targets.yaml'), providerTargets('reply: 42'));
      const refused = await runCommand(process.execPath, ['run.mjs'], { cwd: dir });
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toBe(
        '.agentv/targets.yaml:5:5: target "default": reply: must be a string\n',
      );
    },
    SLOW,
  );

  it(
    "runs the library example of @agentv/core's README as written, with the output it promises",
    async () => {
      // The README as installed: the example's files are its code blocks, each named by its first line.
      const readme = await readFile(
        path.join(project, 'node_modules/@agentv/core/README.md'),
        'utf8',
      );
      const section = readme.slice(readme.indexOf('## Example: run an evaluation from code'));
      const blocks = [
        ...section.matchAll(/```(?:yaml|js)\n(?:#|\/\/) ([\w./-]+)[^\n]*\n[\s\S]*?```/g),
      ];
      const files = blocks.map((match) => match[1]);
      expect(files).toEqual(['.agentv/targets.yaml', 'agent.mjs', 'evals/refunds.yaml', 'run.mjs']);
      const dir = path.join(project, 'readme-example');
      for (const [block, file] of blocks.map((match) => [match[0], match[1]!] as const)) {
        await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
        await writeFile(path.join(dir, file), block.replace(/^```\w+\n/, '').replace(/```$/, ''));
      }
      const promised = /`node run\.mjs` prints ((?:`[^`]+`(?: and )?)+)/.exec(section)?.[1];
      expect(promised).toBe('`refund-001 (default): pass` and `1 of 1 passed`');

      const run = await runCommand(process.execPath, ['run.mjs'], { cwd: dir });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('refund-001 (default): pass\n1 of 1 passed\n');
    },
    SLOW,
  );
});
