import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Issue } from '../errors/input-issue.js';
import type { SourceLocator } from '../yaml/yaml-source.js';
import type { EvaluatorConfig } from './evaluator-config.js';
import {
  checkFileRootOnce,
  describeRefusal,
  type FileRootRefusal,
  type FileRoots,
  systemFolderRefusal,
} from './file-roots.js';
import { promptFileOf } from './prompt-file-of.js';

/** Programs whose first argument is the script file they run (`node ./judge.mjs`). */
const INTERPRETERS = new Set([
  'bash',
  'bun',
  'deno',
  'node',
  'nodejs',
  'perl',
  'php',
  'python',
  'python3',
  'ruby',
  'sh',
  'tsx',
  'zsh',
]);

/** Characters that make a word depend on the shell (variables, globs, redirects): not checked. */
const SHELL_SYNTAX = /[$`*?~{}<>|;&()[\]\\]/;

/** Where an evaluator list is and what to attach to its issues. */
export interface JudgeFilesContext {
  file: string;
  source: SourceLocator;
  /** The eval file's directory: `cwd` and script paths resolve against it. */
  evalDir: string;
  /** The case whose own list this is; undefined for the file's `execution.evaluators`. */
  caseId?: string;
  issues: Issue[];
  /** Memoised existence checks, shared by every list of the file. */
  checked: Map<string, Promise<boolean>>;
  /** Where prompt and schema files may be read from. */
  roots: FileRoots;
  /** Memoised root checks, shared with the file's message blocks. */
  rootChecks: Map<string, Promise<FileRootRefusal | undefined>>;
}

/**
 * Checks the files evaluators refer to before anything runs. The prompt and
 * schema files of `llm_judge`, `json_schema` and composite aggregators must
 * exist and lie inside the project's roots (their text goes to a judge or
 * into results). For `code_judge`, a `cwd` must be an existing directory, and
 * the script file must exist when the command's first word is a relative
 * path (`./judge.sh`) or an interpreter's first argument (`node ./judge.mjs`,
 * `python3 judges/x.py`); a script may be anywhere, as its command line may
 * run any program. Words that depend on the shell (`$VAR`, globs) and
 * commands found on PATH are not checked. Each problem is an error issue on
 * the key.
 */
export async function checkJudgeFiles(
  evaluators: readonly EvaluatorConfig[],
  listPath: readonly PropertyKey[],
  context: JudgeFilesContext,
): Promise<void> {
  await Promise.all(
    evaluators.map((config, index) => checkOne(config, [...listPath, index], context)),
  );
}

// As the planner words problems of the file's shared list: the file's, not a case's.
function listPrefix(context: JudgeFilesContext): string {
  return context.caseId === undefined ? 'execution.evaluators: ' : '';
}

async function checkOne(
  config: EvaluatorConfig,
  entryPath: readonly PropertyKey[],
  context: JudgeFilesContext,
): Promise<void> {
  if (config.type === 'composite' && Array.isArray(config.evaluators)) {
    await Promise.all(
      config.evaluators.map((member, index) =>
        typeof member === 'object' && member !== null && typeof member.type === 'string'
          ? checkOne(
              { name: member.name ?? member.type, ...member } as EvaluatorConfig,
              [...entryPath, 'evaluators', index],
              context,
            )
          : undefined,
      ),
    );
  }
  const templateFile = templateFileOf(config);
  if (templateFile !== undefined) {
    const resolved = path.resolve(context.evalDir, templateFile.file);
    const fail = (message: string, hint: string) => {
      const issue: Issue = {
        severity: 'error',
        file: context.file,
        ...context.source.locate([...entryPath, ...templateFile.key]),
        message: `${listPrefix(context)}evaluator "${config.name}": ${message}`,
        hint,
      };
      if (context.caseId !== undefined) issue.caseId = context.caseId;
      context.issues.push(issue);
    };
    const what = `${templateFile.what} file ${templateFile.file}`;
    const system = systemFolderRefusal(resolved);
    if (system !== undefined) {
      const problem = describeRefusal(what, templateFile.file, system, context.roots);
      fail(problem.message, problem.hint);
    } else if (!(await cached(context.checked, resolved, () => isFile(resolved)))) {
      fail(
        `${what} not found (resolved to ${resolved})`,
        `fix the path in "${templateFile.key.join('.')}"; it is relative to the eval file's directory`,
      );
    } else {
      const refused = await checkFileRootOnce(resolved, context.roots, context.rootChecks);
      if (refused !== undefined) {
        const problem = describeRefusal(what, templateFile.file, refused, context.roots);
        fail(problem.message, problem.hint);
      }
    }
    return;
  }
  if (config.type !== 'code_judge') return;
  const report = (keyPath: PropertyKey[], message: string, hint: string) => {
    const issue: Issue = {
      severity: 'error',
      file: context.file,
      ...context.source.locate([...entryPath, ...keyPath]),
      message: `${listPrefix(context)}evaluator "${config.name}": ${message}`,
      hint,
    };
    if (context.caseId !== undefined) issue.caseId = context.caseId;
    context.issues.push(issue);
  };
  let workDir = context.evalDir;
  if (typeof config.cwd === 'string' && config.cwd.trim() !== '') {
    workDir = path.resolve(context.evalDir, config.cwd);
    if (!(await cached(context.checked, `dir:${workDir}`, () => isDirectory(workDir)))) {
      report(
        ['cwd'],
        `cwd directory ${config.cwd} does not exist (resolved to ${workDir})`,
        "fix the path or create the directory; it is relative to the eval file's directory",
      );
      return;
    }
  }
  const words = scriptWords(config.script);
  if (words === undefined) return;
  const found = scriptFileOf(words);
  if (found === undefined) return;
  const resolved = path.resolve(workDir, found.word);
  if (await cached(context.checked, resolved, () => isFile(resolved))) {
    // Run as the command itself, the file must be executable, or the shell refuses it (126).
    if (found.index > 0) return;
    if (await cached(context.checked, `exec:${resolved}`, () => isExecutable(resolved))) return;
    report(
      Array.isArray(config.script) ? ['script', 0] : ['script'],
      `script file ${found.word} is not executable, so it cannot be run as the command`,
      `make it executable (chmod +x ${found.word}), or name its interpreter first, e.g. "node ${found.word}"`,
    );
    return;
  }
  const relativeTo = workDir === context.evalDir ? "the eval file's directory" : 'its cwd';
  report(
    Array.isArray(config.script) ? ['script', found.index] : ['script'],
    `script file ${found.word} not found (resolved to ${resolved})`,
    `fix the path in "script"; it is relative to ${relativeTo}`,
  );
}

/** The prompt or schema file an `llm_judge`, `json_schema` or composite aggregator names, if any. */
function templateFileOf(
  config: EvaluatorConfig,
): { file: string; key: string[]; what: string } | undefined {
  if (config.type === 'llm_judge' && typeof config.prompt === 'string') {
    const file = promptFileOf(config.prompt);
    return file === undefined ? undefined : { file, key: ['prompt'], what: 'prompt' };
  }
  if (config.type === 'json_schema' && typeof config.schema === 'string') {
    return { file: config.schema, key: ['schema'], what: 'schema' };
  }
  const aggregator = config.aggregator as Record<string, unknown> | undefined;
  if (config.type === 'composite' && aggregator?.type === 'llm_judge') {
    const file =
      typeof aggregator.prompt === 'string' ? promptFileOf(aggregator.prompt) : undefined;
    return file === undefined
      ? undefined
      : { file, key: ['aggregator', 'prompt'], what: 'aggregator prompt' };
  }
  return undefined;
}

/** The words of a script: a command line split like a shell would (quotes honoured), or an argv list. */
export function scriptWords(script: unknown): string[] | undefined {
  if (Array.isArray(script)) {
    return script.every((part) => typeof part === 'string') ? script : undefined;
  }
  if (typeof script !== 'string') return undefined;
  const words: string[] = [];
  for (const match of script.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) {
    words.push(match[1] ?? match[2] ?? match[3]!);
  }
  return words;
}

/** The word naming a local script file, with its position; undefined when there is none to check. */
export function scriptFileOf(
  words: readonly string[],
): { word: string; index: number } | undefined {
  const [command, first] = words;
  if (command === undefined || SHELL_SYNTAX.test(command)) return undefined;
  if (isRelativePath(command) && command.includes('/')) return { word: command, index: 0 };
  if (!INTERPRETERS.has(path.basename(command)) || first === undefined) return undefined;
  if (first.startsWith('-') || SHELL_SYNTAX.test(first) || !isRelativePath(first)) return undefined;
  return first.includes('/') || /\.[A-Za-z0-9]+$/.test(first)
    ? { word: first, index: 1 }
    : undefined;
}

function isRelativePath(word: string): boolean {
  return word !== '' && !path.isAbsolute(word) && !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(word);
}

function cached(
  cache: Map<string, Promise<boolean>>,
  key: string,
  check: () => Promise<boolean>,
): Promise<boolean> {
  let result = cache.get(key);
  if (result === undefined) {
    result = check();
    cache.set(key, result);
  }
  return result;
}

/** Whether any execute permission bit is set (root, too, runs only such a file). */
async function isExecutable(filePath: string): Promise<boolean> {
  const mode = (await stat(filePath).catch(() => undefined))?.mode ?? 0;
  return (mode & 0o111) !== 0;
}

async function isFile(filePath: string): Promise<boolean> {
  return (await stat(filePath).catch(() => undefined))?.isFile() === true;
}

async function isDirectory(dirPath: string): Promise<boolean> {
  return (await stat(dirPath).catch(() => undefined))?.isDirectory() === true;
}

/**
 * The local files evaluators read (absolute): `code_judge` script files and
 * the prompt or schema files of `llm_judge`, `json_schema` and composite
 * aggregators, composite members included, resolved as `checkJudgeFiles`
 * resolves them. E.g. for `agentv eval --watch`, which re-runs when one changes.
 */
export function judgeFilesOf(evaluators: readonly EvaluatorConfig[], evalDir: string): string[] {
  const files: string[] = [];
  for (const config of evaluators) {
    if (config.type === 'composite' && Array.isArray(config.evaluators)) {
      const members = config.evaluators.filter(
        (member): member is EvaluatorConfig =>
          typeof member === 'object' && member !== null && typeof member.type === 'string',
      );
      files.push(...judgeFilesOf(members, evalDir));
    }
    const templateFile = templateFileOf(config);
    if (templateFile !== undefined) files.push(path.resolve(evalDir, templateFile.file));
    if (config.type !== 'code_judge') continue;
    const words = scriptWords(config.script);
    const found = words === undefined ? undefined : scriptFileOf(words);
    if (found === undefined) continue;
    const workDir =
      typeof config.cwd === 'string' && config.cwd.trim() !== ''
        ? path.resolve(evalDir, config.cwd)
        : evalDir;
    files.push(path.resolve(workDir, found.word));
  }
  return files;
}
