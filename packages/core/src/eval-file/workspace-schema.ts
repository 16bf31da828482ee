import { z } from 'zod';
import { once } from '../util/once.js';
import type { ProblemKind } from '../yaml/describe-zod-issues.js';

function buildWorkspaceSchemas() {
  /** One lifecycle hook (`hooks.before_each` …). */
  const workspaceHookSchema = z.looseObject({
    command: z
      .union([z.string().min(1), z.array(z.string()).min(1)])
      .optional()
      .describe(
        'A string run by /bin/sh -c (it gets the workspace as "$AGENTV_WORKSPACE"; `{{…}}` is refused there), or an argv list run without a shell, where {{workspace_path}}, {{test_id}}, {{eval_run_id}}, {{case_input}} and {{case_metadata}} are replaced',
      ),
    script: z
      .union([z.string().min(1), z.array(z.string()).min(1)])
      .optional()
      .describe('Deprecated spelling of `command` (AgentV 4), read as it'),
    timeout_ms: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        'Kill the hook with its whole process group after this many milliseconds (default 60000)',
      ),
    cwd: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Working directory; relative to the file that declares the block. Default: the workspace',
      ),
    reset: z
      .enum(['none', 'fast', 'strict'])
      .optional()
      .describe(
        'Read but ignored (AgentV 4): pooled workspaces are always reset to their pristine state between cases',
      ),
  });

  /** `hooks:` of a workspace. */
  const workspaceHooksSchema = z.looseObject({
    enabled: z
      .boolean()
      .optional()
      .describe('false skips every hook of the block (a case may turn them back on)'),
    before_all: workspaceHookSchema
      .optional()
      .describe('Once per workspace configuration, before its first case; a failure stops the run'),
    before_each: workspaceHookSchema
      .optional()
      .describe(
        'Before each case, in its workspace; a failure makes the case an error naming the hook',
      ),
    after_each: workspaceHookSchema
      .optional()
      .describe('After each case, graded or not; a failure is a warning'),
    after_all: workspaceHookSchema
      .optional()
      .describe('Once per workspace configuration, after its last case; a failure is a warning'),
  });

  /** One entry of `repos:`. */
  const workspaceRepoSchema = z.looseObject({
    path: z
      .string()
      .min(1)
      .describe('Where the repository is checked out, relative to the workspace, e.g. `./repo`'),
    repo: z
      .string()
      .min(1)
      .describe(
        'A URL (https://, ssh://, git@host:path, file://), GitHub `org/name`, or a local repository: an absolute path or one starting with ./ or ../ (relative to the file that declares the block)',
      ),
    commit: z
      .string()
      .min(1)
      .optional()
      .describe('The commit, branch or tag checked out (default: HEAD)'),
    base_commit: z
      .string()
      .min(1)
      .optional()
      .describe('Alias of `commit` (SWE-bench); must equal `commit` when both are set'),
    ancestor: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Check out this many first parents before `commit` (1: its parent)'),
    sparse: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('Sparse checkout (cone mode): only these folders of the repository'),
  });

  /** One `docker.mounts` entry. */
  const workspaceDockerMountSchema = z.looseObject({
    source: z
      .string()
      .min(1)
      .describe('A folder of the project, relative to the file that declares the block'),
    target: z.string().min(1).describe('Where it appears in the container: an absolute path'),
    read_only: z.boolean().optional().describe('Mount it read-only (default false)'),
  });

  /** `docker:` of a workspace. */
  const workspaceDockerSchema = z.looseObject({
    image: z
      .string()
      .min(1)
      .optional()
      .describe(
        'An image the Docker engine already has (AgentV never pulls: `docker pull` it once)',
      ),
    build: z
      .string()
      .min(1)
      .optional()
      .describe(
        'A Dockerfile, or a folder holding one, relative to the file that declares the block; built once per content of its folder',
      ),
    memory: z.string().min(1).optional().describe('Memory limit, e.g. `512m`, `2g`'),
    cpus: z.number().positive().optional().describe('CPU limit, e.g. `1.5`'),
    network: z
      .string()
      .min(1)
      .optional()
      .describe('`none` (default: no network), `bridge`, or the name of a Docker network'),
    user: z.string().min(1).optional().describe('`uid`, `uid:gid` or a user of the image'),
    env: z
      .record(z.string(), z.string())
      .optional()
      .describe('Environment variables of every process in the container'),
    mounts: z
      .array(workspaceDockerMountSchema)
      .optional()
      .describe('Folders of the project mounted into the container'),
    read_only: z
      .boolean()
      .optional()
      .describe('Read-only root file system (default true; /workspace and /tmp stay writable)'),
    timeout: z
      .number()
      .positive()
      .optional()
      .describe('Longest a process in the container may run, in seconds'),
  });

  /** A `workspace:` mapping. */
  const workspaceBlockSchema = z.looseObject({
    template: z
      .string()
      .min(1)
      .optional()
      .describe(
        'A folder copied into every workspace, relative to the file that declares the block; it must be inside the project root or a folder of allowed_file_roots',
      ),
    repos: z
      .array(workspaceRepoSchema)
      .optional()
      .describe('Git repositories checked out into the workspace at a pinned commit'),
    isolation: z
      .enum(['per_case', 'per_test', 'shared'])
      .optional()
      .describe(
        '`per_case` (default; `per_test` is read as it): every case gets its own workspace; `shared`: one workspace for all cases with this configuration',
      ),
    mode: z
      .enum(['pooled', 'temp'])
      .optional()
      .describe(
        '`pooled` (default): one workspace per worker, reset to its pristine state between cases; `temp`: a fresh copy for every case',
      ),
    hooks: workspaceHooksSchema
      .optional()
      .describe('Commands run before and after all cases and each case'),
    docker: workspaceDockerSchema
      .optional()
      .describe(
        'Run the cases in a container with the workspace mounted at /workspace: `image` or `build`, `memory`, `cpus`, `network` (default none), `user`, `env`, `mounts`, `read_only`, `timeout`',
      ),
    env: z
      .unknown()
      .optional()
      .describe('Read but ignored (AgentV 4 preflight checks of required commands)'),
  });

  /**
   * `workspace:` of an eval file or a case: a mapping, or the path of a YAML
   * file holding one (relative paths inside it resolve against its folder).
   */
  const workspaceFieldSchema = z
    .union([z.string().min(1), workspaceBlockSchema])
    .describe(
      'The folder the agent works in: `template` and/or `repos`, `isolation`, `mode`, `hooks`; or the path of a YAML file holding that mapping. A case-level block replaces the file-level one key by key (`hooks` hook by hook)',
    );

  return {
    hook: workspaceHookSchema,
    hooks: workspaceHooksSchema,
    repo: workspaceRepoSchema,
    dockerMount: workspaceDockerMountSchema,
    docker: workspaceDockerSchema,
    block: workspaceBlockSchema,
    field: workspaceFieldSchema,
  };
}

/**
 * The schemas of a `workspace:` block, made on first use: ~170 zod schemas that a run
 * without workspaces never needs (making them was ~3 ms of every start-up).
 */
export const workspaceSchemas = once(buildWorkspaceSchemas);

type WorkspaceSchemas = ReturnType<typeof buildWorkspaceSchemas>;

export type WorkspaceBlockInput = z.infer<WorkspaceSchemas['block']>;
export type WorkspaceRepoInput = z.infer<WorkspaceSchemas['repo']>;
export type WorkspaceHookInput = z.infer<WorkspaceSchemas['hook']>;
export type WorkspaceHooksInput = z.infer<WorkspaceSchemas['hooks']>;
export type WorkspaceDockerInput = z.infer<WorkspaceSchemas['docker']>;

/** Keys understood in each mapping of a workspace block, for unknown-key errors. */
export const workspaceKeys = once(() => {
  const schemas = workspaceSchemas();
  return {
    block: Object.keys(schemas.block.shape),
    repo: Object.keys(schemas.repo.shape),
    hooks: Object.keys(schemas.hooks.shape),
    hook: Object.keys(schemas.hook.shape),
    docker: Object.keys(schemas.docker.shape),
    mount: Object.keys(schemas.dockerMount.shape),
  };
});

/** The four hook names, in the order they run. */
export const WORKSPACE_HOOK_NAMES = [
  'before_all',
  'before_each',
  'after_each',
  'after_all',
] as const;

/** How to fix a schema problem inside a workspace block (`path` starts at `workspace`). */
export function workspaceHint(
  issuePath: readonly PropertyKey[],
  _kind: ProblemKind,
): string | undefined {
  const keys = issuePath.filter((segment): segment is string => typeof segment === 'string');
  const last = keys.at(-1);
  const lastSegment = issuePath.at(-1);
  if (last === 'workspace' && typeof lastSegment === 'string') {
    return 'write the block as a mapping (`workspace: {template: ./fixture}`) or the path of a YAML file holding one';
  }
  if (last === 'isolation') return 'use `per_case` (default) or `shared`';
  if (last === 'mode') return 'use `pooled` (default) or `temp`';
  if (last === 'template') return 'write the path of a folder, e.g. `template: ./fixture`';
  if (last === 'repos') {
    return typeof lastSegment === 'number'
      ? 'write each repository as `{path: ./repo, repo: <url or ./local-repo>, commit: <sha>}`'
      : 'write `repos:` as a list of `{path, repo, commit}` mappings';
  }
  if (keys.includes('repos')) {
    if (last === 'path') return 'name the folder inside the workspace, e.g. `path: ./repo`';
    if (last === 'repo')
      return 'write a URL, GitHub `org/name`, or a local path starting with ./ or /';
    if (last === 'commit' || last === 'base_commit') {
      return 'write the commit as text; quote a sha that looks like a number, e.g. `commit: "1234567"`';
    }
    if (last === 'ancestor') return 'ancestor is a whole number >= 0 (1: the parent of `commit`)';
    if (last === 'sparse')
      return 'write the folders to check out as a list, e.g. `sparse: [src, docs]`';
  }
  if (keys.includes('docker')) {
    if (last === 'docker')
      return 'write `docker:` as a mapping, e.g. `docker: {image: python:3.12}`';
    if (last === 'memory')
      return 'write the limit with a unit, e.g. `memory: 512m` or `memory: 2g`';
    if (last === 'cpus') return 'cpus is a number > 0, e.g. `cpus: 1.5`';
    if (last === 'env') return 'write `env:` as a mapping of names to text values';
    if (last === 'mounts') return 'write `mounts:` as a list of `{source: ./data, target: /data}`';
    if (last === 'read_only') return 'write `read_only: true` or `read_only: false`';
    if (last === 'timeout') return 'timeout is a number of seconds > 0, e.g. `timeout: 1800`';
    return 'write it as text';
  }
  if (keys.includes('hooks')) {
    if (last === 'command' || last === 'script') {
      return 'write the command as text (run by /bin/sh) or as a list of arguments, e.g. `command: ["node", "setup.mjs"]`';
    }
    if (last === 'timeout_ms')
      return 'timeout_ms is a whole number of milliseconds > 0, e.g. `timeout_ms: 120000`';
    if (last === 'cwd') return 'write the working directory as a path';
    if (last === 'reset') return 'use `none`, `fast` or `strict` (read but ignored), or remove it';
    if (last === 'enabled') return 'write `enabled: true` or `enabled: false`';
    return 'write each hook as a mapping, e.g. `before_each: {command: "npm ci"}`';
  }
  return undefined;
}
