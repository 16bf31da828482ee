import { runProcess } from '../process/run-process.js';
import { stderrExcerpt } from '../process/stderr-excerpt.js';

/** How to run one git command. */
export interface GitOptions {
  cwd: string;
  /** The project's environment; git's own variables (`GIT_DIR`…) are left out of it. */
  env: Readonly<Record<string, string | undefined>>;
  /** Set after the environment is cleaned, e.g. `GIT_INDEX_FILE`. */
  gitEnv?: Readonly<Record<string, string>>;
  /** Keep only the first this many bytes of stdout. */
  maxStdoutBytes?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A git command that failed: `stderrLine` is git's message (its last `fatal:`/`error:` line). */
export class GitCommandError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
    readonly stderrLine: string,
  ) {
    super(`git ${args.join(' ')} failed: ${stderrLine}`);
  }
}

// Settings no workspace may change in AgentV's own git calls: an agent can write the
// workspace's `.git/config` and hooks, and AgentV must not run what it put there.
const SAFE_SETTINGS = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.untrackedCache=false',
  '-c',
  'advice.detachedHead=false',
  '-c',
  'gc.auto=0',
  '-c',
  'maintenance.auto=false',
];

/** Runs `git args` and resolves with its stdout; rejects with a `GitCommandError` when it fails. */
export async function runGit(args: readonly string[], options: GitOptions): Promise<string> {
  const outcome = await runProcess({
    command: ['git', ...SAFE_SETTINGS, ...args],
    cwd: options.cwd,
    env: gitEnvironment(options.env, options.gitEnv),
    ...(options.maxStdoutBytes === undefined ? {} : { maxStdoutBytes: options.maxStdoutBytes }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    maxStderrBytes: 64 * 1024,
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
    throw new GitCommandError(args, '', 'git is not installed (no `git` on PATH)');
  });
  if (outcome.exitCode === 0) return outcome.stdout;
  const reason = outcome.timedOut
    ? `timed out after ${options.timeoutMs} ms`
    : outcome.aborted
      ? 'stopped'
      : lastMessageLine(outcome.stderr) ||
        `exited with ${outcome.exitCode ?? outcome.signalName ?? 'an unknown status'}`;
  throw new GitCommandError(args, stderrExcerpt(outcome.stderr), reason);
}

function gitEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> | undefined,
): Record<string, string | undefined> {
  const result: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(env)) {
    // GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE from a git hook that started AgentV would aim
    // these commands at the user's repository.
    if (!name.startsWith('GIT_') || name === 'GIT_SSH_COMMAND' || name === 'GIT_SSH') {
      result[name] = value;
    }
  }
  return {
    ...result,
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    LC_ALL: 'C',
    ...extra,
  };
}

/** The line of git's stderr that says what went wrong. */
function lastMessageLine(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  return lines.findLast((line) => /^(fatal|error):/.test(line)) ?? lines[lines.length - 1] ?? '';
}
