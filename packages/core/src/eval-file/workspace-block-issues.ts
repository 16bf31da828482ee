import type { Issue } from '../errors/input-issue.js';
import { closestMatch } from '../util/closest-match.js';
import { isRecord } from '../util/records.js';
import { repoSource } from '../workspace/resolve-workspace-config.js';
import type { SourceLocator } from '../yaml/yaml-source.js';
import { dockerIssues } from './workspace-docker-issues.js';
import type { Report, UnknownKeys } from './workspace-issue-reporters.js';
import { WORKSPACE_HOOK_NAMES, workspaceKeys } from './workspace-schema.js';

/** Where a workspace block is written, for its issues. */
export interface WorkspacePlace {
  /** The file as issues name it. */
  file: string;
  source: SourceLocator;
  /** The data path of the block in that file. */
  path: readonly PropertyKey[];
  /** The block's name in messages (`workspace`, also in a file holding only the block). */
  shown: string;
  caseId?: string;
  /** Set for a block in a dataset record: it may not run commands or reach the network. */
  datasetRecord?: boolean;
  /** Absolute folder relative paths of the block resolve against. */
  baseDir: string;
  /** Hook names (`before_each`…) whose command a case's block may leave to the file's block. */
  inheritedCommands?: ReadonlySet<string>;
}

/** Upstream's `{{…}}` variables of hook argv items. */
export const HOOK_VARIABLES = [
  'workspace_path',
  'test_id',
  'eval_run_id',
  'case_input',
  'case_metadata',
];

/** Keys AgentV 4 removed, with what replaced them. */
const REMOVED_BLOCK_KEYS: Record<string, { message: string; hint: string }> = {
  static_path: {
    message:
      'was removed in AgentV 4 (its replacement, `mode: static` with `path`, is not supported)',
    hint: 'use `template: <the folder>`: it is copied into each workspace, so the folder itself never changes',
  },
  static: {
    message: 'was removed in AgentV 4 (its replacement, `mode: static`, is not supported)',
    hint: 'use `template: <the folder>`: it is copied into each workspace, so the folder itself never changes',
  },
  pool: {
    message: 'was removed in AgentV 4',
    hint: 'use `mode: pooled` (the default) or `mode: temp`',
  },
};

const REMOVED_REPO_KEYS: Record<string, string> = {
  source: 'use `repo:` (a URL, GitHub `org/name`, or a local path starting with ./ or /)',
  checkout: 'use `commit:` (or `base_commit:`) and `ancestor:` on the entry itself',
  clone: 'use `sparse:` on the entry for a partial checkout',
};

const STATIC_HINT =
  'use `template: <the folder>` instead: AgentV copies it for each worker (`mode: pooled`) or case (`mode: temp`) and resets the copy between cases, so the folder is never changed and each case starts from the same files';

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/**
 * Problems of a `workspace:` mapping that its schema cannot see: keys AgentV 4
 * removed, `mode: static`, a `docker:` block's values, unknown keys (errors, with "did you
 * mean"), `base_commit` ≠ `commit`, repository paths outside the workspace,
 * `{{…}}` in a hook command run by the shell, unknown `{{…}}` in argv hooks,
 * keys read but ignored (warnings), and, in a dataset record, hooks and
 * repository URLs.
 */
export function workspaceBlockIssues(
  block: Record<string, unknown>,
  place: WorkspacePlace,
): Issue[] {
  const issues: Issue[] = [];
  const report = (
    severity: Issue['severity'],
    relative: readonly PropertyKey[],
    key: string | undefined,
    message: string,
    hint: string,
    showKey = true,
  ) => {
    const at = [...place.path, ...relative];
    const position = key === undefined ? place.source.locate(at) : place.source.locateKey(at, key);
    const issue: Issue = {
      severity,
      file: place.file,
      ...position,
      message: `${shownPath(place.shown, key === undefined || !showKey ? relative : [...relative, key])}${message}`,
      hint,
    };
    if (place.caseId !== undefined) issue.caseId = place.caseId;
    issues.push(issue);
  };
  const unknownKeys = (
    value: Record<string, unknown>,
    relative: PropertyKey[],
    known: readonly string[],
    skip: readonly string[] = [],
  ) => {
    for (const key of Object.keys(value)) {
      if (known.includes(key) || skip.includes(key)) continue;
      const match = closestMatch(key, known);
      report(
        'error',
        relative,
        key,
        `: unknown key "${key}"`,
        match === undefined ? `use one of: ${known.join(', ')}` : `did you mean "${match}"?`,
        false,
      );
    }
  };

  for (const [key, removed] of Object.entries(REMOVED_BLOCK_KEYS)) {
    if (key in block) report('error', [], key, ` ${removed.message}`, removed.hint);
  }
  if (block.mode === 'static') {
    report(
      'error',
      ['mode'],
      undefined,
      ': `static` (work in a folder as it is) is not supported',
      STATIC_HINT,
    );
  }
  if ('path' in block) {
    report(
      'error',
      [],
      'path',
      ' (`mode: static`: work in a folder as it is) is not supported',
      STATIC_HINT,
    );
  }
  if (isRecord(block.docker)) {
    dockerIssues(block.docker, place.datasetRecord === true, report, unknownKeys);
  }
  if ('env' in block) {
    report(
      'warning',
      [],
      'env',
      ' (preflight checks of required commands) is not supported and is ignored',
      'check what the cases need in a `before_all` hook, e.g. `command: ["python3", "-c", "import numpy"]`',
    );
  }
  unknownKeys(block, [], workspaceKeys().block, [...Object.keys(REMOVED_BLOCK_KEYS), 'path']);

  if (Array.isArray(block.repos)) repoIssues(block.repos, place, report, unknownKeys);
  if (isRecord(block.hooks)) hookIssues(block.hooks, place, report, unknownKeys);
  return issues;
}

function repoIssues(
  repos: unknown[],
  place: WorkspacePlace,
  report: Report,
  unknownKeys: UnknownKeys,
): void {
  const firstByPath = new Map<string, number>();
  repos.forEach((entry, index) => {
    if (!isRecord(entry)) return;
    const at = ['repos', index];
    for (const [key, hint] of Object.entries(REMOVED_REPO_KEYS)) {
      if (key in entry) report('error', at, key, ' was removed in AgentV 4', hint);
    }
    unknownKeys(entry, at, workspaceKeys().repo, Object.keys(REMOVED_REPO_KEYS));
    const { commit, base_commit: baseCommit } = entry;
    if (typeof commit === 'string' && typeof baseCommit === 'string' && commit !== baseCommit) {
      report(
        'error',
        at,
        'base_commit',
        ` "${baseCommit}" differs from commit "${commit}"`,
        '`base_commit` is another name for `commit`: keep one of them',
      );
    }
    for (const key of ['commit', 'base_commit']) {
      const value = entry[key];
      if (typeof value === 'string' && value.startsWith('-')) {
        report(
          'error',
          [...at, key],
          undefined,
          ` "${value}" is not a commit`,
          'name a commit, branch or tag; none starts with "-"',
        );
      }
    }
    if (typeof entry.path === 'string' && entry.path !== '') {
      const inside = workspaceRelative(entry.path);
      if (inside === undefined) {
        report(
          'error',
          [...at, 'path'],
          undefined,
          ` "${entry.path}" is outside the workspace`,
          'write a path inside the workspace, e.g. `path: ./repo` (`.` for the workspace itself)',
        );
      } else if (firstByPath.has(inside)) {
        report(
          'error',
          [...at, 'path'],
          undefined,
          ` "${entry.path}" is also the path of repos[${firstByPath.get(inside)}]`,
          'check each repository out into its own folder',
        );
      } else {
        firstByPath.set(inside, index);
      }
    }
    if (place.datasetRecord && typeof entry.repo === 'string' && entry.repo !== '') {
      if (repoSource(entry.repo, place.baseDir).kind === 'remote') {
        report(
          'error',
          [...at, 'repo'],
          undefined,
          ` "${entry.repo}": a dataset record cannot bring a repository URL (it would reach the network from the dataset)`,
          "declare repositories to fetch in the eval file's `workspace:`; a record may name a local repository of the project",
        );
      }
    }
  });
}

function hookIssues(
  hooks: Record<string, unknown>,
  place: WorkspacePlace,
  report: Report,
  unknownKeys: UnknownKeys,
): void {
  unknownKeys(hooks, ['hooks'], workspaceKeys().hooks);
  for (const name of WORKSPACE_HOOK_NAMES) {
    const hook = hooks[name];
    if (!isRecord(hook)) continue;
    const at = ['hooks', name];
    if (place.datasetRecord) {
      report(
        'error',
        at,
        undefined,
        ': a dataset record cannot bring a hook (it would run a command written in the dataset)',
        "declare hooks in the eval file's `workspace:`, which applies to every record",
      );
      continue;
    }
    unknownKeys(hook, at, workspaceKeys().hook);
    const hasCommand = hook.command !== undefined;
    if (hook.script !== undefined) {
      if (hasCommand) {
        report(
          'warning',
          at,
          'script',
          ' is ignored: `command` is set too',
          'remove `script:` (its old name)',
        );
      } else {
        report(
          'warning',
          at,
          'script',
          ' is deprecated; it is read as `command`',
          'rename `script:` to `command:`',
        );
      }
    }
    if (hook.reset !== undefined) {
      report(
        'warning',
        at,
        'reset',
        ' is ignored: AgentV resets a pooled workspace to its pristine state after every case',
        'remove `reset:`; for a fresh copy per case use `mode: temp`, to keep state across cases `isolation: shared`',
      );
    }
    const command = hasCommand ? hook.command : hook.script;
    const commandKey = hasCommand ? 'command' : 'script';
    if (command === undefined) {
      if (hook.reset === undefined && place.inheritedCommands?.has(name) !== true) {
        report(
          'error',
          at,
          undefined,
          ' has no command',
          'add `command: <shell command>` or `command: [program, arg, ...]`',
        );
      }
      continue;
    }
    if (typeof command === 'string' && PLACEHOLDER.test(command)) {
      PLACEHOLDER.lastIndex = 0;
      report(
        'error',
        [...at, commandKey],
        undefined,
        ': `{{…}}` cannot be used in a command run by the shell (a case value would become shell code)',
        'read the environment instead, e.g. `command: ./setup.sh "$AGENTV_WORKSPACE"` (also $AGENTV_EVAL_ID), or write the command as a list, where `{{workspace_path}}` and the other variables are replaced: `command: ["./setup.sh", "{{workspace_path}}"]`',
      );
    }
    PLACEHOLDER.lastIndex = 0;
    if (Array.isArray(command)) {
      command.forEach((item, index) => {
        if (typeof item !== 'string') return;
        for (const match of item.matchAll(PLACEHOLDER)) {
          const variable = match[1] ?? '';
          if (HOOK_VARIABLES.includes(variable)) continue;
          const close = closestMatch(variable, HOOK_VARIABLES);
          report(
            'error',
            [...at, commandKey, index],
            undefined,
            `: unknown variable {{${variable}}}`,
            `${close === undefined ? '' : `did you mean {{${close}}}? `}the variables are ${HOOK_VARIABLES.map((name) => `{{${name}}}`).join(', ')}`,
          );
        }
      });
    }
  }
}

/**
 * A repository's `path` as a normalised path inside the workspace (`.` for
 * the workspace itself), or undefined when it is absolute or leaves it.
 */
export function workspaceRelative(written: string): string | undefined {
  const slashes = written.replaceAll('\\', '/');
  if (slashes.startsWith('/') || /^[a-zA-Z]:/.test(slashes)) return undefined;
  const parts: string[] = [];
  for (const part of slashes.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
      continue;
    }
    parts.push(part);
  }
  return parts.length === 0 ? '.' : parts.join('/');
}

/** `workspace.repos[0].commit: ` (or `repos[0].commit: ` in a workspace file). */
function shownPath(prefix: string, relative: readonly PropertyKey[]): string {
  let shown = prefix;
  for (const segment of relative) {
    shown +=
      typeof segment === 'number' ? `[${segment}]` : `${shown === '' ? '' : '.'}${String(segment)}`;
  }
  return shown;
}
