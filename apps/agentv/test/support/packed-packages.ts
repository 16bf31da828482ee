import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The monorepo's root folder. */
export const WORKSPACE_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The package.json fields the packaging checks read. */
export interface PackageManifest {
  name: string;
  version: string;
  private?: boolean;
  description?: string;
  license?: string;
  repository?: { directory?: string };
  engines?: { node?: string };
  types?: string;
  exports?: unknown;
  bin?: Record<string, string>;
  publishConfig?: { access?: string };
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** A publishable package of the workspace, as its package.json describes it. */
export interface WorkspacePackage {
  dir: string;
  name: string;
  version: string;
  manifest: PackageManifest;
}

/** Every package under `packages/*` and `apps/*` that is not private, sorted by folder. */
export async function workspacePackages(): Promise<WorkspacePackage[]> {
  const found: WorkspacePackage[] = [];
  for (const group of ['packages', 'apps']) {
    const entries = await readdir(path.join(WORKSPACE_ROOT, group), { withFileTypes: true });
    for (const entry of entries.filter((each) => each.isDirectory())) {
      const dir = path.join(WORKSPACE_ROOT, group, entry.name);
      const text = await readFile(path.join(dir, 'package.json'), 'utf8').catch(() => undefined);
      if (text === undefined) continue;
      const manifest = JSON.parse(text) as PackageManifest;
      if (manifest.private === true) continue;
      found.push({ dir, name: manifest.name, version: manifest.version, manifest });
    }
  }
  return found.sort((a, b) => a.dir.localeCompare(b.dir));
}

/** The file name `pnpm pack` gives a package's tarball. */
export function tarballName(pkg: { name: string; version: string }): string {
  return `${pkg.name.replace(/^@/, '').replace('/', '-')}-${pkg.version}.tgz`;
}

/**
 * The environment of a user's shell: this process's environment without the
 * variables pnpm, npm and turbo set for the running script, and without the
 * repository's `node_modules/.bin` folders on PATH, so nothing resolves back
 * into the workspace.
 */
export function userEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|pnpm_|PNPM_|TURBO_|VITEST|INIT_CWD$)/i.test(key)) continue;
    env[key] = value;
  }
  const root = path.resolve(WORKSPACE_ROOT);
  env.PATH = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((entry) => entry !== '' && path.relative(root, path.resolve(entry)).startsWith('..'))
    .join(path.delimiter);
  env.NO_COLOR = '1';
  return env;
}

/** How a command ended and what it printed. */
export interface CommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` with `args` (no shell) in `cwd` and collects its output. */
export function runCommand(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? userEnvironment(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Like `runCommand`, but fails with everything the command printed when it exits non-zero. */
export async function mustRun(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<CommandRun> {
  const run = await runCommand(command, args, options);
  if (run.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} (in ${options.cwd}) exited with ${run.code}\n${run.stdout}\n${run.stderr}`,
    );
  }
  return run;
}

/**
 * Packs every public workspace package into `destination` as the README's
 * `npm run pack` does (`scripts/pack.mjs`: one `pnpm -r pack`, which writes
 * each internal `workspace:` range as an exact version); returns the
 * tarballs' paths.
 */
export async function packWorkspace(destination: string): Promise<string[]> {
  await mustRun(process.execPath, [path.join(WORKSPACE_ROOT, 'scripts/pack.mjs'), destination], {
    cwd: WORKSPACE_ROOT,
    env: { ...userEnvironment(), PATH: process.env.PATH },
  });
  return (await readdir(destination))
    .filter((file) => file.endsWith('.tgz'))
    .map((file) => path.join(destination, file))
    .sort();
}

/** The file paths in a tarball, without the leading `package/`. */
export async function tarballFiles(tarball: string): Promise<string[]> {
  const { stdout } = await mustRun('tar', ['-tzf', tarball], { cwd: path.dirname(tarball) });
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/^package\//, ''))
    .sort();
}

/** The package.json inside a tarball. */
export async function tarballManifest(tarball: string): Promise<PackageManifest> {
  const { stdout } = await mustRun('tar', ['-xzOf', tarball, 'package/package.json'], {
    cwd: path.dirname(tarball),
  });
  return JSON.parse(stdout) as PackageManifest;
}
