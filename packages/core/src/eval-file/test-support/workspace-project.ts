import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Issue } from '../../errors/input-issue.js';
import { loadEvalFile } from '../load-eval-file.js';

const made: string[] = [];

/** Removes every project `project` made; call it from `afterEach`. */
export async function removeProjects(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** An empty temp folder (real path), removed by `removeProjects` like a project. */
export async function tempFolder(prefix: string): Promise<string> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), `${prefix}-`)));
  made.push(dir);
  return dir;
}

/** A project (its own repository root) holding `files`; returns its real path. */
export async function project(files: Record<string, string>): Promise<string> {
  const dir = await tempFolder('agentv-workspace');
  await mkdir(path.join(dir, '.agentv'));
  for (const [relative, content] of Object.entries(files)) {
    const target = path.join(dir, relative);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return dir;
}

/** Makes `dir` a git repository with two commits; returns their shas, oldest first. */
export function gitRepo(dir: string): string[] {
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@example.com',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@example.com',
      },
    }).trim();
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'one', '--allow-empty');
  git('commit', '-q', '-m', 'two', '--allow-empty');
  return [git('rev-parse', 'HEAD~1'), git('rev-parse', 'HEAD')];
}

/** One case of `evalcases:`, with `extra` lines under it. */
export const CASE = (id: string, extra = '') =>
  `  - id: ${id}\n    input_messages: [{ role: user, content: hi }]\n${extra}`;

/** File-level graders, so cases need none of their own. */
export const GRADERS = 'execution:\n  evaluators: [{ type: contains, value: ok }]\n';

/** An issue on one line: severity, position, case, message and hint. */
export function brief(issue: Issue): string {
  return `${issue.severity} ${issue.line}:${issue.column}${issue.caseId ? ` [${issue.caseId}]` : ''} ${issue.message} (${issue.hint})`;
}

/** Loads `file` of the project in `dir` as the CLI does (cwd = the project). */
export async function load(dir: string, file = 'evals/suite.yaml') {
  return loadEvalFile(file, { cwd: dir });
}
