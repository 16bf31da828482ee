import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Issue } from '../errors/input-issue.js';
import { runProcess } from '../process/run-process.js';
import { closestMatch } from '../util/closest-match.js';
import { displayPath } from '../util/display-path.js';
import { isGithubShorthand, repoSource } from '../workspace/resolve-workspace-config.js';
import { checkFileRootOnce, describeRefusal } from './file-roots.js';
import type { FileLookup } from './resolve-input-file.js';
import type { WorkspacePlace } from './workspace-block-issues.js';
import type { WorkspaceBlockInput } from './workspace-schema.js';

/** Memoised disk and git checks, shared by every workspace block of one eval file. */
export type WorkspaceSourceChecks = Map<string, Promise<SourceProblem | undefined>>;

/** What is wrong with a template folder, a local repository or a commit in it. */
type SourceProblem =
  | { kind: 'missing'; suggestion?: string }
  | { kind: 'not-folder' }
  | { kind: 'not-repository' }
  | { kind: 'no-commit'; gitSays?: string }
  | { kind: 'no-git'; gitSays: string };

/** Longest time a `git rev-parse` may take before it counts as failed. */
const GIT_TIMEOUT_MS = 30_000;

/**
 * Checks what a workspace block names on this machine, without copying,
 * cloning or running anything but `git rev-parse`: the template is an
 * existing folder inside the file roots; each local repository is one (a
 * work tree with `.git`, or a bare repository) inside the roots, holding
 * `commit` (`~ancestor`); a `docker:` block's `build` and mount sources
 * exist inside the roots. Repositories reached by URL are not checked (no
 * network), nor is any Docker engine contacted.
 */
export async function workspaceSourceIssues(
  block: WorkspaceBlockInput,
  place: WorkspacePlace,
  lookup: FileLookup,
  checks: WorkspaceSourceChecks,
): Promise<Issue[]> {
  const issues: Issue[] = [];
  const report = (
    at: readonly PropertyKey[],
    message: string,
    hint: string,
    severity: Issue['severity'] = 'error',
  ) => {
    const issue: Issue = {
      severity,
      file: place.file,
      ...place.source.locate([...place.path, ...at]),
      message,
      hint,
    };
    if (place.caseId !== undefined) issue.caseId = place.caseId;
    issues.push(issue);
  };
  const shown = (absolute: string) => displayPath(lookup.cwd, absolute);
  const relativeHint = `relative paths start from ${shown(place.baseDir)}${path.sep}`;
  const refused = async (absolute: string, what: string, written: string, at: PropertyKey[]) => {
    const refusal = await checkFileRootOnce(absolute, lookup.roots, lookup.rootChecks);
    if (refusal === undefined) return false;
    const problem = describeRefusal(what, written, refusal, lookup.roots);
    report(at, problem.message, problem.hint);
    return true;
  };

  const work: Promise<void>[] = [];
  if (block.template !== undefined) {
    const written = block.template;
    const absolute = path.resolve(place.baseDir, written);
    const what = `workspace.template "${written}"`;
    work.push(
      (async () => {
        const problem = await once(checks, `folder\u0000${absolute}`, () =>
          folderProblem(absolute),
        );
        if (problem?.kind === 'missing') {
          const close = didYouMeanFolder(written, problem.suggestion);
          report(
            ['template'],
            `${what} not found (looked for ${shown(absolute)})`,
            `${close}${relativeHint}`,
          );
        } else if (problem?.kind === 'not-folder') {
          report(
            ['template'],
            `${what} is a file, not a folder`,
            'name a folder: its contents are copied into each workspace',
          );
        } else {
          await refused(absolute, what, written, ['template']);
        }
      })(),
    );
  }
  block.repos?.forEach((entry, index) => {
    const at = ['repos', index];
    const source = repoSource(entry.repo, place.baseDir);
    const what = `workspace.repos[${index}].repo "${entry.repo}"`;
    if (source.kind === 'remote') {
      if (!isGithubShorthand(entry.repo)) return;
      // `org/name` is GitHub's; a folder of that name beside the file was probably meant.
      const local = path.resolve(place.baseDir, entry.repo);
      work.push(
        (async () => {
          const problem = await once(checks, `folder\u0000${local}`, () => folderProblem(local));
          if (problem !== undefined) return;
          report(
            [...at, 'repo'],
            `${what} is read as the GitHub repository ${entry.repo}, yet a folder of that name is beside ${place.file}`,
            `write \`repo: ./${entry.repo}\` for the local repository`,
            'warning',
          );
        })(),
      );
      return;
    }
    const directory = source.path;
    work.push(
      (async () => {
        const problem = await once(checks, `repo\u0000${directory}`, () =>
          repositoryProblem(directory),
        );
        if (problem?.kind === 'missing') {
          const close = didYouMeanFolder(entry.repo, problem.suggestion);
          report(
            [...at, 'repo'],
            `${what} not found (looked for ${shown(directory)})`,
            `${close}${relativeHint}`,
          );
          return;
        }
        if (await refused(directory, what, entry.repo, [...at, 'repo'])) return;
        if (problem?.kind === 'not-folder') {
          report(
            [...at, 'repo'],
            `${what} is a file, not a repository`,
            'name the top folder of a git repository (the one holding .git)',
          );
          return;
        }
        if (problem?.kind === 'not-repository') {
          report(
            [...at, 'repo'],
            `${what} is not a git repository (no .git in ${shown(directory)})`,
            'name the top folder of a git repository, or make one there: `git init && git add -A && git commit -m fixture`; a plain folder is a `template:`',
          );
          return;
        }
        const commit = entry.commit ?? entry.base_commit;
        const revision = `${commit ?? 'HEAD'}${entry.ancestor ? `~${entry.ancestor}` : ''}`;
        const found = await once(checks, `commit\u0000${directory}\u0000${revision}`, () =>
          commitProblem(directory, revision),
        );
        if (found === undefined) return;
        const commitKey = entry.commit !== undefined ? 'commit' : 'base_commit';
        const gitSays =
          found.kind === 'no-commit' || found.kind === 'no-git' ? found.gitSays : undefined;
        if (found.kind === 'no-git') {
          report(
            [...at, 'repo'],
            `${what}: git could not be run to check the commit (${gitSays})`,
            'install git, or put it on PATH',
            'warning',
          );
          return;
        }
        const where = commit === undefined ? [...at, 'repo'] : [...at, commitKey];
        const missing =
          commit === undefined
            ? entry.ancestor
              ? `${what}: HEAD has no ancestor ${entry.ancestor}`
              : `${what} has no commits`
            : entry.ancestor
              ? `workspace.repos[${index}].${commitKey} "${commit}" with ancestor ${entry.ancestor} is not a commit of ${entry.repo}`
              : `workspace.repos[${index}].${commitKey} "${commit}" is not a commit of ${entry.repo}`;
        report(
          where,
          missing,
          `${gitSays === undefined ? '' : `git says: ${gitSays}; `}list the commits with \`git -C ${shown(directory)} log --oneline\`; a branch or tag name works too`,
        );
      })(),
    );
  });
  const docker = place.datasetRecord ? undefined : block.docker;
  const dockerPaths: { written: string; at: PropertyKey[]; what: string; folder: boolean }[] = [];
  if (docker?.build !== undefined) {
    const what = `workspace.docker.build "${docker.build}"`;
    dockerPaths.push({ written: docker.build, at: ['docker', 'build'], what, folder: false });
  }
  docker?.mounts?.forEach((mount, index) => {
    const what = `workspace.docker.mounts[${index}].source "${mount.source}"`;
    dockerPaths.push({
      written: mount.source,
      at: ['docker', 'mounts', index, 'source'],
      what,
      folder: true,
    });
  });
  for (const { written, at, what, folder } of dockerPaths) {
    const absolute = path.resolve(place.baseDir, written);
    work.push(
      (async () => {
        const problem = await once(checks, `folder\u0000${absolute}`, () =>
          folderProblem(absolute),
        );
        if (problem?.kind === 'missing') {
          const close = didYouMeanFolder(written, problem.suggestion);
          report(
            at,
            `${what} not found (looked for ${shown(absolute)})`,
            `${close}${relativeHint}`,
          );
        } else if (problem?.kind === 'not-folder' && folder) {
          report(at, `${what} is a file, not a folder`, 'mount a folder of the project');
        } else {
          await refused(absolute, what, written, at);
        }
      })(),
    );
  }
  await Promise.all(work);
  return issues;
}

/** `did you mean "./fixtures/tmpl"? ` for the sibling `suggestion` of the folder `written` names; else ''. */
function didYouMeanFolder(written: string, suggestion: string | undefined): string {
  if (suggestion === undefined) return '';
  const trimmed = written.replace(/[\\/]+$/, '');
  const slash = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  return `did you mean "${trimmed.slice(0, slash + 1)}${suggestion}"? `;
}

function once(
  checks: WorkspaceSourceChecks,
  key: string,
  check: () => Promise<SourceProblem | undefined>,
): Promise<SourceProblem | undefined> {
  let result = checks.get(key);
  if (result === undefined) {
    result = check();
    checks.set(key, result);
  }
  return result;
}

async function folderProblem(absolute: string): Promise<SourceProblem | undefined> {
  const info = await stat(absolute).catch(() => undefined);
  if (info === undefined) return { kind: 'missing', ...(await closeSibling(absolute)) };
  return info.isDirectory() ? undefined : { kind: 'not-folder' };
}

async function repositoryProblem(directory: string): Promise<SourceProblem | undefined> {
  const folder = await folderProblem(directory);
  if (folder !== undefined) return folder;
  const [dotGit, head, objects] = await Promise.all(
    ['.git', 'HEAD', 'objects'].map((name) =>
      stat(path.join(directory, name)).catch(() => undefined),
    ),
  );
  // A work tree has `.git` (a folder, or a file for worktrees and submodules); a bare repository HEAD and objects/.
  if (dotGit !== undefined || (head?.isFile() && objects?.isDirectory())) return undefined;
  return { kind: 'not-repository' };
}

async function commitProblem(
  directory: string,
  revision: string,
): Promise<SourceProblem | undefined> {
  try {
    const outcome = await runProcess({
      command: [
        'git',
        '-C',
        directory,
        'rev-parse',
        '--verify',
        '--quiet',
        '--end-of-options',
        `${revision}^{commit}`,
      ],
      cwd: directory,
      env: gitEnvironment(),
      timeoutMs: GIT_TIMEOUT_MS,
      maxStdoutBytes: 4096,
      maxStderrBytes: 4096,
    });
    if (outcome.exitCode === 0) return undefined;
    const gitSays = outcome.stderr.trim().split('\n')[0];
    return gitSays ? { kind: 'no-commit', gitSays } : { kind: 'no-commit' };
  } catch (error) {
    return { kind: 'no-git', gitSays: error instanceof Error ? error.message : String(error) };
  }
}

/** The environment without git's own variables, which could point it at another repository. */
function gitEnvironment(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('GIT_')) env[name] = value;
  }
  return env;
}

/** `{suggestion: "name"}` when a folder beside `absolute` is a likely typo of its name. */
async function closeSibling(absolute: string): Promise<{ suggestion?: string }> {
  const entries = await readdir(path.dirname(absolute), { withFileTypes: true }).catch(() => []);
  const folders = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  const match = closestMatch(path.basename(absolute), folders);
  return match === undefined ? {} : { suggestion: match };
}
