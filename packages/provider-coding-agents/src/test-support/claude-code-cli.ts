import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The Claude Code release the tests run. */
export const CLAUDE_CODE_PIN = { npmPackage: '@anthropic-ai/claude-code', version: '2.1.332' };

/**
 * Where pinned agent CLIs are installed, once, and reused by later runs: `$AGENTV_AGENT_CACHE`,
 * else `node_modules/.cache/agentv-agents` of the repository.
 */
export function agentCacheDir(): string {
  return (
    process.env.AGENTV_AGENT_CACHE ??
    join(new URL('../../../../node_modules/.cache/agentv-agents', import.meta.url).pathname)
  );
}

/**
 * The `claude` executable of the pinned release, installed from npm into the cache on first use
 * (its postinstall puts the native binary in place; ~400 MB). Undefined when it cannot be
 * installed and the tests may skip: never under `CI` or `AGENTV_REQUIRE_AGENTS=1`.
 */
export async function claudeCodeExecutable(): Promise<string | undefined> {
  const { npmPackage, version } = CLAUDE_CODE_PIN;
  const folder = join(agentCacheDir(), `${npmPackage.replace('/', '+')}@${version}`);
  const executable = join(folder, 'node_modules', '.bin', 'claude');
  if (await reportsVersion(executable, version)) return executable;
  try {
    await withLock(`${folder}.lock`, async () => {
      if (await reportsVersion(executable, version)) return;
      rmSync(folder, { recursive: true, force: true });
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, 'package.json'), '{ "private": true }\n');
      // The package asks for Node 22 but only its postinstall runs on Node: the CLI is native.
      await run(
        'npm',
        ['install', '--no-audit', '--no-fund', '--loglevel=error', `${npmPackage}@${version}`],
        { cwd: folder, maxBuffer: 16 * 1024 * 1024 },
      );
      if (!(await reportsVersion(executable, version))) {
        // npm versions that hold back install scripts leave a stub: run the postinstall ourselves.
        await run('node', ['install.cjs'], { cwd: join(folder, 'node_modules', npmPackage) });
      }
      if (!(await reportsVersion(executable, version))) {
        throw new Error(`${executable} --version does not report ${version} after installing`);
      }
    });
    return executable;
  } catch (error) {
    const message = `could not install ${npmPackage}@${version} into ${folder}: ${String(error)}`;
    if (process.env.CI || process.env.AGENTV_REQUIRE_AGENTS === '1') throw new Error(message);
    console.warn(`skipping Claude Code tests: ${message}`);
    return undefined;
  }
}

async function reportsVersion(executable: string, version: string): Promise<boolean> {
  if (!existsSync(executable)) return false;
  try {
    const { stdout } = await run(executable, ['--version'], { timeout: 60_000 });
    return stdout.includes(version);
  } catch {
    return false;
  }
}

/** Runs `work` while holding a lock folder, so parallel test files install once. */
async function withLock(lock: string, work: () => Promise<void>): Promise<void> {
  mkdirSync(join(lock, '..'), { recursive: true });
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${lock} is still held after 15 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  try {
    await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
