import { runProcess } from '../process/run-process.js';
import { stderrExcerpt } from '../process/stderr-excerpt.js';
import { SANDBOX_WORKSPACE, type Sandbox } from '../sandbox/sandbox-runtime.js';
import { sandboxPath } from './sandbox-path.js';
import type { WorkspaceDocker, WorkspaceHook } from './workspace-config.js';
import type { WorkspaceCaseInfo } from './workspace-manager.js';

/** The names hooks have in eval files, used in messages. */
export type HookName = 'before_all' | 'before_each' | 'after_each' | 'after_all';

export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

/** Where and for whom a hook runs. */
export interface HookContext {
  /** The workspace: the hook's default working directory, `AGENTV_WORKSPACE`. */
  workspace: string;
  runId: string;
  /** The project's environment. */
  env: Readonly<Record<string, string | undefined>>;
  /** The case, for `before_each` and `after_each`. */
  info?: WorkspaceCaseInfo;
  signal?: AbortSignal;
  /**
   * The container the workspace is mounted into: the hook runs there (see
   * `runHookInSandbox`) instead of on this machine.
   */
  sandbox?: { sandbox: Sandbox; docker: WorkspaceDocker };
}

/** Why a hook failed, in words for a message; undefined when it succeeded. */
export interface HookFailure {
  /** `exited with code 3`, `timed out after 60000 ms`, `could not start: …`. */
  reason: string;
  /** The end of its stderr (and stdout when stderr is empty). */
  output: string;
}

/**
 * Runs one hook through the process runner (its own process group, killed
 * with it at `timeoutMs`, default 60 s): a string through `/bin/sh -c`, a list
 * without a shell, `{{workspace_path}}`, `{{test_id}}`, `{{eval_run_id}}`,
 * `{{case_input}}` and `{{case_metadata}}` replaced in the list's items (a
 * string command never has them: no case value enters a shell line). It gets
 * the project's environment with `AGENTV_WORKSPACE`, `AGENTV_RUN_ID` and, for a
 * case, `AGENTV_EVAL_ID`, `AGENTV_EVAL_FILE`, `AGENTV_TARGET` and
 * `AGENTV_REPEAT`; and on stdin the JSON `{workspace_path, test_id,
 * eval_run_id, case_input, case_metadata}` (null where there is no value).
 */
export async function runHook(
  hook: WorkspaceHook,
  context: HookContext,
): Promise<HookFailure | undefined> {
  if (context.sandbox !== undefined) return runHookInSandbox(hook, context, context.sandbox);
  const values = hookValues(context);
  const timeoutMs = hook.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  let outcome: Awaited<ReturnType<typeof runProcess>>;
  try {
    outcome = await runProcess({
      command:
        typeof hook.command === 'string'
          ? hook.command
          : hook.command.map((item) => substitute(item, values)),
      cwd: hook.cwd ?? context.workspace,
      env: hookEnvironment(context),
      stdin: `${JSON.stringify(values)}\n`,
      timeoutMs,
      ...(context.signal === undefined ? {} : { signal: context.signal }),
      maxStdoutBytes: 64 * 1024,
      maxStderrBytes: 64 * 1024,
    });
  } catch (error) {
    return { reason: `could not start: ${(error as Error).message}`, output: '' };
  }
  return hookFailure(outcome, timeoutMs, `was ended by ${outcome.signalName}`);
}

/**
 * Runs a hook in the workspace's container: working directory `/workspace`
 * (a `cwd` inside the workspace or a mount is the same folder inside; any
 * other is a failure), `AGENTV_WORKSPACE` and `{{workspace_path}}`
 * `/workspace`, the container's environment (`docker.env`) plus the hook
 * variables — none of this machine's environment.
 */
async function runHookInSandbox(
  hook: WorkspaceHook,
  context: HookContext,
  { sandbox, docker }: { sandbox: Sandbox; docker: WorkspaceDocker },
): Promise<HookFailure | undefined> {
  const inside: HookContext = { ...context, workspace: SANDBOX_WORKSPACE, env: {} };
  const values = hookValues(inside);
  const timeoutMs = hook.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  const cwd =
    hook.cwd === undefined ? SANDBOX_WORKSPACE : sandboxPath(hook.cwd, context.workspace, docker);
  if (cwd === undefined) {
    return {
      reason: `could not start: its cwd ${hook.cwd} is not inside the container (only the workspace and docker.mounts are)`,
      output: '',
    };
  }
  let outcome: Awaited<ReturnType<Sandbox['exec']>>;
  try {
    outcome = await sandbox.exec({
      command:
        typeof hook.command === 'string'
          ? hook.command
          : hook.command.map((item) => substitute(item, values)),
      cwd,
      env: definedOnly(hookEnvironment(inside)),
      stdin: `${JSON.stringify(values)}\n`,
      timeoutMs,
      ...(context.signal === undefined ? {} : { signal: context.signal }),
      maxStdoutBytes: 64 * 1024,
      maxStderrBytes: 64 * 1024,
    });
  } catch (error) {
    return { reason: `could not start: ${(error as Error).message}`, output: '' };
  }
  // Out of memory wins over the exit code (137) the kill left.
  const oom = outcome.oomKilled ? `was killed: ${outcome.message ?? 'out of memory'}` : undefined;
  return hookFailure(outcome, timeoutMs, oom ?? `was ended: ${outcome.message ?? 'killed'}`, oom);
}

/**
 * How a hook that ran ended, on this machine or in a container: undefined when
 * it succeeded. `ended` says why a process without an exit code ended;
 * `overriding`, when given, is the reason whatever the exit code.
 */
function hookFailure(
  outcome: {
    exitCode?: number;
    timedOut: boolean;
    aborted: boolean;
    stdout: string;
    stderr: string;
  },
  timeoutMs: number,
  ended: string,
  overriding?: string,
): HookFailure | undefined {
  if (outcome.exitCode === 0 && !outcome.timedOut) return undefined;
  const output = stderrExcerpt(
    outcome.stderr.trim() === '' ? outcome.stdout : outcome.stderr,
    1000,
  );
  const reason = outcome.timedOut
    ? `timed out after ${timeoutMs} ms (stopped with its process group)`
    : outcome.aborted
      ? 'was stopped: the run was interrupted'
      : (overriding ??
        (outcome.exitCode === undefined ? ended : `exited with code ${outcome.exitCode}`));
  return { reason, output };
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  const defined: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) defined[key] = value;
  return defined;
}

function hookValues(context: HookContext): Record<string, unknown> {
  return {
    workspace_path: context.workspace,
    test_id: context.info?.evalId ?? null,
    eval_run_id: context.runId,
    case_input: context.info?.input ?? null,
    case_metadata: context.info?.vars ?? null,
  };
}

const PLACEHOLDER = /\{\{\s*(workspace_path|test_id|eval_run_id|case_input|case_metadata)\s*\}\}/g;

function substitute(item: string, values: Record<string, unknown>): string {
  return item.replace(PLACEHOLDER, (_, name: string) => {
    const value = values[name];
    if (value === null || value === undefined) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

function hookEnvironment(context: HookContext): Record<string, string | undefined> {
  const info = context.info;
  return {
    ...context.env,
    AGENTV_WORKSPACE: context.workspace,
    AGENTV_RUN_ID: context.runId,
    ...(info === undefined
      ? {}
      : {
          AGENTV_EVAL_ID: info.evalId,
          AGENTV_EVAL_FILE: info.evalFile,
          AGENTV_TARGET: info.target,
          ...(info.repeat === undefined ? {} : { AGENTV_REPEAT: String(info.repeat) }),
        }),
  };
}

/** `workspace hook before_each (npm ci) exited with code 1:` and the hook's output. */
export function hookFailureMessage(
  name: HookName,
  hook: WorkspaceHook,
  failure: HookFailure,
): string {
  const command = typeof hook.command === 'string' ? hook.command : hook.command.join(' ');
  const shown = command.length > 80 ? `${command.slice(0, 77)}...` : command;
  return `workspace hook ${name} (${shown}) ${failure.reason}${failure.output === '' ? '' : `:\n${failure.output}`}`;
}
