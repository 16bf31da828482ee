import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import type { Issue } from '../errors/input-issue.js';
import { displayPath } from '../util/display-path.js';
import { hasErrors } from '../util/load-result.js';
import { readInputFile } from '../util/read-input-file.js';
import { isRecord } from '../util/records.js';
import {
  repoSource,
  type WorkspaceHookLayer,
  type WorkspaceLayer,
} from '../workspace/resolve-workspace-config.js';
import type { WorkspaceRepo } from '../workspace/workspace-config.js';
import { describeZodIssues } from '../yaml/describe-zod-issues.js';
import { parseYamlMapping } from '../yaml/parse-yaml-mapping.js';
import { type WorkspaceSourceChecks, workspaceSourceIssues } from './check-workspace-sources.js';
import { checkFileRootOnce, describeRefusal } from './file-roots.js';
import type { FileLookup } from './resolve-input-file.js';
import { toDockerConfig } from './to-docker-config.js';
import {
  type WorkspacePlace,
  workspaceBlockIssues,
  workspaceRelative,
} from './workspace-block-issues.js';
import {
  type WorkspaceBlockInput,
  type WorkspaceHookInput,
  workspaceHint,
  workspaceSchemas,
} from './workspace-schema.js';

/** What reading the workspace blocks of one eval file shares. */
export interface WorkspaceReading {
  lookup: FileLookup;
  issues: Issue[];
  /** Disk and git checks, by what they check. */
  checks: WorkspaceSourceChecks;
  /** Workspace files (`workspace: ./shared.yaml`), by absolute path: each is read once. */
  files: Map<string, Promise<WorkspaceLayer | undefined>>;
  /** Absolute paths of the workspace files, templates and local repositories read (`EvalFile.workspaceSources`). */
  sources: Set<string>;
}

/** A block's place, and how its schema problems become issues. */
export interface WorkspaceBlockPlace extends WorkspacePlace {
  describe(zodIssues: readonly z.core.$ZodIssue[]): Issue[];
}

/**
 * Reads a `workspace:` value (a mapping, or the path of a YAML file holding
 * one) into a layer with absolute paths, checking it and what it names on
 * disk; problems go to `reading.issues`. Undefined when the block has errors.
 */
export async function readWorkspaceBlock(
  value: unknown,
  place: WorkspaceBlockPlace,
  reading: WorkspaceReading,
): Promise<WorkspaceLayer | undefined> {
  if (typeof value === 'string' && value !== '') {
    if (place.datasetRecord) {
      reading.issues.push(
        issueAt(place, [], {
          message: `workspace "${value}": a dataset record cannot name a workspace file`,
          hint: "write the block inline in the record (template, local repos, isolation, mode), or declare it in the eval file's `workspace:`",
        }),
      );
      return undefined;
    }
    return readWorkspaceFile(value, place, reading);
  }
  if (!isRecord(value)) {
    const parsed = workspaceSchemas().field.safeParse(value);
    if (!parsed.success) reading.issues.push(...place.describe(parsed.error.issues));
    return undefined;
  }
  const issues = workspaceBlockIssues(value, place);
  // `mode: static` has its own error above; the schema would repeat it less helpfully.
  const checked = value.mode === 'static' ? { ...value, mode: undefined } : value;
  const parsed = workspaceSchemas().block.safeParse(checked);
  if (!parsed.success) issues.push(...place.describe(parsed.error.issues));
  if (!parsed.success) {
    reading.issues.push(...issues);
    return undefined;
  }
  // What the block names is checked even when it has other errors: every problem at once.
  issues.push(...(await workspaceSourceIssues(parsed.data, place, reading.lookup, reading.checks)));
  reading.issues.push(...issues);
  if (hasErrors(issues)) return undefined;
  const layer = toLayer(parsed.data, place.baseDir);
  if (layer.template !== undefined) reading.sources.add(layer.template);
  if (layer.docker?.build !== undefined) reading.sources.add(layer.docker.build);
  for (const repo of layer.repos ?? []) {
    if (path.isAbsolute(repo.repo)) reading.sources.add(repo.repo);
  }
  return layer;
}

/** Reads `workspace: ./file.yaml` once per file; paths inside it resolve against its folder. */
function readWorkspaceFile(
  written: string,
  place: WorkspaceBlockPlace,
  reading: WorkspaceReading,
): Promise<WorkspaceLayer | undefined> {
  const absolute = path.resolve(place.baseDir, written);
  reading.sources.add(absolute);
  let layer = reading.files.get(absolute);
  if (layer === undefined) {
    layer = loadWorkspaceFile(written, absolute, place, reading);
    reading.files.set(absolute, layer);
  }
  return layer;
}

async function loadWorkspaceFile(
  written: string,
  absolute: string,
  place: WorkspaceBlockPlace,
  reading: WorkspaceReading,
): Promise<WorkspaceLayer | undefined> {
  const fail = (message: string, hint: string) => {
    reading.issues.push(issueAt(place, [], { message, hint }));
    return undefined;
  };
  const what = `workspace file "${written}"`;
  const info = await stat(absolute).catch(() => undefined);
  if (info === undefined) {
    return fail(
      `${what} not found (looked for ${displayPath(reading.lookup.cwd, absolute)})`,
      `the path is relative to the folder of ${place.file}`,
    );
  }
  const refusal = await checkFileRootOnce(
    absolute,
    reading.lookup.roots,
    reading.lookup.rootChecks,
  );
  if (refusal !== undefined) {
    const problem = describeRefusal(what, written, refusal, reading.lookup.roots);
    return fail(problem.message, problem.hint);
  }
  const file = displayPath(reading.lookup.cwd, absolute);
  const text = await readInputFile(absolute, file, 'workspace file');
  if (text.value === undefined) {
    for (const issue of text.issues) fail(`${what}: ${issue.message}`, issue.hint ?? '');
    return undefined;
  }
  const parsed = await parseYamlMapping(text.value, file, 'workspace file');
  reading.issues.push(...parsed.issues);
  if (parsed.value === undefined) return undefined;
  const { data, source } = parsed.value;
  if (Object.keys(data).length === 1 && isRecord(data.workspace)) {
    reading.issues.push({
      severity: 'error',
      file,
      ...source.locateKey([], 'workspace'),
      message: 'a workspace file holds the block itself, not a `workspace:` key',
      hint: 'remove the `workspace:` line and unindent what it holds',
    });
    return undefined;
  }
  const inner: WorkspaceBlockPlace = {
    file,
    source,
    path: [],
    shown: 'workspace',
    baseDir: path.dirname(absolute),
    describe: (zodIssues) =>
      describeZodIssues(zodIssues, {
        file,
        source,
        data,
        showValues: true,
        scope: (issuePath) => ({ shownPath: ['workspace', ...issuePath] }),
        hint: (issuePath, kind) => workspaceHint(['workspace', ...issuePath], kind),
      }),
  };
  return readWorkspaceBlock(data, inner, reading);
}

/** A layer from a valid block; relative paths resolve against `baseDir`. */
function toLayer(block: WorkspaceBlockInput, baseDir: string): WorkspaceLayer {
  const layer: WorkspaceLayer = { baseDir };
  if (block.template !== undefined) layer.template = path.resolve(baseDir, block.template);
  if (block.repos !== undefined) {
    layer.repos = block.repos.map((entry) => {
      const source = repoSource(entry.repo, baseDir);
      // A local repository is kept by absolute path: a case's block may use the file's repos.
      const repo: WorkspaceRepo = {
        path: workspaceRelative(entry.path) ?? entry.path,
        repo: source.kind === 'local' ? source.path : entry.repo,
      };
      const commit = entry.commit ?? entry.base_commit;
      if (commit !== undefined) repo.commit = commit;
      if (entry.ancestor !== undefined) repo.ancestor = entry.ancestor;
      if (entry.sparse !== undefined) repo.sparse = entry.sparse;
      return repo;
    });
  }
  if (block.isolation !== undefined) {
    layer.isolation = block.isolation === 'shared' ? 'shared' : 'per_case';
  }
  if (block.mode !== undefined) layer.mode = block.mode;
  const hooks = block.hooks;
  if (hooks !== undefined) {
    const resolved: NonNullable<WorkspaceLayer['hooks']> = {};
    if (hooks.enabled !== undefined) resolved.enabled = hooks.enabled;
    const add = (
      name: 'beforeAll' | 'beforeEach' | 'afterEach' | 'afterAll',
      hook: WorkspaceHookInput | undefined,
    ) => {
      if (hook === undefined) return;
      const layerHook: WorkspaceHookLayer = {};
      const command = hook.command ?? hook.script;
      if (command !== undefined) layerHook.command = command;
      if (hook.timeout_ms !== undefined) layerHook.timeoutMs = hook.timeout_ms;
      if (hook.cwd !== undefined) layerHook.cwd = path.resolve(baseDir, hook.cwd);
      resolved[name] = layerHook;
    };
    add('beforeAll', hooks.before_all);
    add('beforeEach', hooks.before_each);
    add('afterEach', hooks.after_each);
    add('afterAll', hooks.after_all);
    layer.hooks = resolved;
  }
  if (block.docker !== undefined) layer.docker = toDockerConfig(block.docker, baseDir);
  return layer;
}

function issueAt(
  place: WorkspacePlace,
  relative: readonly PropertyKey[],
  problem: { message: string; hint: string },
): Issue {
  const issue: Issue = {
    severity: 'error',
    file: place.file,
    ...place.source.locate([...place.path, ...relative]),
    ...problem,
  };
  if (place.caseId !== undefined) issue.caseId = place.caseId;
  return issue;
}
