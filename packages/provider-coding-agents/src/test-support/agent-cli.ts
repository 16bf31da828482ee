import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The agent CLIs the tests run, at the versions they were written against. */
export const PINNED_AGENTS = {
  codex: { npmPackage: '@openai/codex', version: '0.169.0', bin: 'codex' },
  // Its postinstall puts the native binary in place (~400 MB); without it `claude` is a stub.
  'claude-code': { npmPackage: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
  // Plain JavaScript on Node 20.
  'gemini-cli': { npmPackage: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
  // A native binary from an optional dependency of the package (~180 MB).
  opencode: { npmPackage: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
  // A native binary from an optional dependency of the package (~190 MB); it unpacks its code
  // (~235 MB) on first start.
  'copilot-cli': { npmPackage: '@github/copilot', version: '1.0.102', bin: 'copilot' },
} as const;

export type PinnedAgent = keyof typeof PINNED_AGENTS;

/** A command-line program from npm at a fixed version: its package and the command it installs. */
export interface PinnedCli {
  npmPackage: string;
  version: string;
  bin: string;
}

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Where installed CLIs are kept between runs: `$AGENTV_AGENT_CACHE`, else
 * `node_modules/.cache/agentv-agents/` at the repository root.
 */
export function agentCacheDir(): string {
  return (
    process.env.AGENTV_AGENT_CACHE ?? path.join(REPO_ROOT, 'node_modules/.cache/agentv-agents')
  );
}

/** Whether a missing CLI must fail the tests rather than skip them (CI, `AGENTV_REQUIRE_AGENTS=1`). */
export function agentsRequired(): boolean {
  return process.env.AGENTV_REQUIRE_AGENTS === '1' || process.env.CI !== undefined;
}

/**
 * Whether this run leaves the real agent CLIs out (`AGENTV_SKIP_EXTERNAL_PROGRAMS=1`): `.ci/run`'s
 * second pass, on another Node, where what the CLIs do does not depend on the Node running AgentV.
 */
export function agentsSkipped(): boolean {
  return process.env.AGENTV_SKIP_EXTERNAL_PROGRAMS === '1';
}

/**
 * The path of the pinned CLI of `agent`, installed with npm into the cache folder the first
 * time (once across concurrent test files: a lock folder; a marker file says the install
 * finished). Undefined when the install failed and the tests may skip (neither
 * `AGENTV_REQUIRE_AGENTS=1` nor `CI`), throws then otherwise; undefined, without installing,
 * when `agentsSkipped()`.
 */
export function ensureAgentCli(agent: PinnedAgent): Promise<string | undefined> {
  if (agentsSkipped()) return Promise.resolve(undefined);
  return ensurePinnedCli(PINNED_AGENTS[agent]);
}

/**
 * `ensureAgentCli` for any pinned npm command (one whose `--version` prints its version): the
 * path of its command in the cache folder, installed the first time.
 */
export async function ensurePinnedCli(pin: PinnedCli): Promise<string | undefined> {
  const { npmPackage, version, bin } = pin;
  const dir = path.join(agentCacheDir(), `${npmPackage.replace('/', '+')}@${version}`);
  const executable = path.join(dir, 'node_modules/.bin', bin);
  const marker = path.join(dir, '.installed');
  if (existsSync(marker) && existsSync(executable)) return executable;
  const lock = `${dir}.lock`;
  await mkdir(path.dirname(dir), { recursive: true });
  try {
    await acquire(lock);
    try {
      if (!(existsSync(marker) && existsSync(executable))) {
        await rm(dir, { recursive: true, force: true });
        await mkdir(dir, { recursive: true });
        await promisify(execFile)(
          'npm',
          [
            'install',
            '--prefix',
            dir,
            '--no-audit',
            '--no-fund',
            '--no-save',
            '--loglevel=error',
            `${npmPackage}@${version}`,
          ],
          { timeout: 10 * 60_000, maxBuffer: 16 * 1024 * 1024 },
        );
        if (!existsSync(executable)) throw new Error(`npm installed no ${bin} command`);
        if (!(await reportsVersion(executable, version))) {
          // An npm that held back the package's install script left a stub: run it now.
          await promisify(execFile)('npm', ['rebuild', '--prefix', dir, npmPackage], {
            timeout: 10 * 60_000,
            maxBuffer: 16 * 1024 * 1024,
          });
          if (!(await reportsVersion(executable, version))) {
            throw new Error(`${bin} --version does not report ${version}`);
          }
        }
        await writeFile(marker, `${npmPackage}@${version}\n`);
      }
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
    return executable;
  } catch (error) {
    const message = `could not install ${npmPackage}@${version} into ${dir}: ${(error as Error).message}`;
    if (agentsRequired()) throw new Error(message);
    console.warn(`${message}; its tests are skipped (set AGENTV_REQUIRE_AGENTS=1 to fail instead)`);
    return undefined;
  }
}

async function reportsVersion(executable: string, version: string): Promise<boolean> {
  try {
    const { stdout } = await promisify(execFile)(executable, ['--version'], { timeout: 60_000 });
    return stdout.includes(version);
  } catch {
    return false;
  }
}

/** Takes the lock folder, waiting for another installer; a lock older than 15 minutes is stale. */
async function acquire(lock: string): Promise<void> {
  for (;;) {
    try {
      await mkdir(lock);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = await stat(lock).then(
        (info) => Date.now() - info.mtimeMs,
        () => 0,
      );
      if (age > 15 * 60_000) await rm(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
