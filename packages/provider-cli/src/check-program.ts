import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, resolve } from 'node:path';
import type { Issue } from '@agentv/core';
import { hasPlaceholder, isRecord, type ResolvedTarget } from '@agentv/core/provider-utils';

/**
 * Words that make the first word of a command not a program this check can
 * judge: shell keywords and builtins (`cd x && …`, `exec node …`, `. ./env.sh`).
 */
const SHELL_WORDS = new Set([
  '!',
  '.',
  ':',
  '[',
  '[[',
  '{',
  'alias',
  'builtin',
  'case',
  'cd',
  'command',
  'eval',
  'exec',
  'export',
  'false',
  'for',
  'if',
  'local',
  'nohup',
  'pushd',
  'read',
  'set',
  'source',
  'test',
  'time',
  'trap',
  'true',
  'ulimit',
  'umask',
  'unset',
  'until',
  'while',
]);

/** `NAME=value` before the program, unquoted. */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=[^\s'"`$\\;&|<>(){}]*$/;
/** A program name or path with nothing the shell would expand or split. */
const PLAIN_WORD = /^[A-Za-z0-9_./+@%:,-]+$/;

/**
 * The program a shell command line starts, when that is clear: the first word
 * after `NAME=value` assignments, unless it is a shell keyword or builtin, or
 * holds quotes, `$`, `{PLACEHOLDER}`s, globs or `~`. Undefined otherwise.
 */
export function programOf(command: string): string | undefined {
  return startOf(command)?.program;
}

function startOf(command: string): { program: string; next: string | undefined } | undefined {
  const words = command.trim().split(/\s+/);
  let index = 0;
  while (index < words.length && ASSIGNMENT.test(words[index]!)) index++;
  const word = words[index];
  if (word === undefined || word === '' || !PLAIN_WORD.test(word)) return undefined;
  if (SHELL_WORDS.has(word)) return undefined;
  return { program: word, next: words[index + 1] };
}

/**
 * Interpreters that run a script file named by their first argument, relative to the working
 * directory and never looked for on PATH. Shells are not here: `bash name` also searches PATH.
 */
const SCRIPT_RUNNERS = new Set(['node', 'python', 'python3', 'ruby', 'perl', 'php', 'bun', 'tsx']);
/** Shells: their first argument is checked only when it is a path (holds a `/`). */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh']);
/** What a script file's name ends with; a word without one may be a module or a command name. */
const SCRIPT_FILE = /\.(?:[cm]?[jt]sx?|py|rb|pl|php|sh|bash|zsh)$/;

/**
 * The script an interpreter is asked to run, when the command clearly names one: the word right
 * after `node`, `python3`, `bash`, … (by name or path), when it is a plain file name with a
 * script's extension (for a shell, a path). Undefined otherwise: a flag (`python3 -m pkg`), a
 * placeholder, a name without an extension.
 */
export function scriptOf(command: string): { interpreter: string; script: string } | undefined {
  const start = startOf(command);
  if (start === undefined) return undefined;
  const interpreter = start.program.slice(start.program.lastIndexOf('/') + 1);
  const script = start.next;
  if (script === undefined || script.startsWith('-') || !PLAIN_WORD.test(script)) return undefined;
  if (!SCRIPT_FILE.test(script)) return undefined;
  if (SCRIPT_RUNNERS.has(interpreter) || (SHELLS.has(interpreter) && script.includes('/'))) {
    return { interpreter, script };
  }
  return undefined;
}

/**
 * Checks that the program `command` starts exists: a path (`./agent.sh`) must
 * be an executable file relative to `cwd`; a bare name must be an executable
 * file on `PATH` (relative entries resolve against `cwd`); then, unless
 * `scripts` is false, the script an interpreter is to run (`node ./agent.mjs`,
 * see `scriptOf`) must be a file relative to `cwd`. Returns a problem with
 * `path` `['command_template']`, or undefined when both were found or the
 * command is not clearly a program (a shell snippet, a builtin).
 */
export function checkProgram(
  command: string,
  cwd: string,
  pathVariable: string | undefined,
  options: { scripts?: boolean } = {},
): Issue | undefined {
  if (process.platform === 'win32') return undefined;
  const program = programIssue(command, cwd, pathVariable);
  if (program !== undefined || options.scripts === false) return program;
  return scriptIssue(command, cwd);
}

/**
 * A script the command's interpreter is to run (`node ./agent.mjs {PROMPT}`, see `scriptOf`)
 * that is not a file: the interpreter would start, fail, and be retried for every case.
 */
function scriptIssue(command: string, cwd: string): Issue | undefined {
  const named = scriptOf(command);
  if (named === undefined) return undefined;
  const file = resolve(cwd, named.script);
  const kind = entryKind(file);
  if (kind === 'file') return undefined;
  return {
    severity: 'error',
    path: ['command_template'],
    message:
      kind === 'missing'
        ? `script file ${named.script} (run by ${named.interpreter}) not found (resolved to ${file})`
        : `script file ${named.script} (run by ${named.interpreter}) is not a file (${file})`,
    hint: `fix the path in command_template; it is relative to the target's working directory ${JSON.stringify(cwd)}`,
  };
}

function programIssue(
  command: string,
  cwd: string,
  pathVariable: string | undefined,
): Issue | undefined {
  const program = programOf(command);
  if (program === undefined) return undefined;
  const where = `working directory ${JSON.stringify(cwd)}`;
  if (program.includes('/')) {
    const file = resolve(cwd, program);
    const state = fileState(file);
    if (state === 'executable') return undefined;
    return {
      severity: 'error',
      path: ['command_template'],
      message:
        state === 'missing'
          ? `the program "${program}" does not exist (looked for ${file})`
          : `the program "${program}" is not an executable file (${file})`,
      hint:
        state === 'missing'
          ? `fix the path; relative paths resolve against the target's ${where}`
          : `make it executable (chmod +x ${program}), or start it through its interpreter (e.g. "sh ${program}" or "node ${program}")`,
    };
  }
  const entries = (pathVariable ?? '').split(delimiter);
  for (const entry of entries) {
    // An empty PATH entry means the current directory, as for the shell.
    const directory = isAbsolute(entry) ? entry : resolve(cwd, entry);
    if (fileState(resolve(directory, program)) === 'executable') return undefined;
  }
  return {
    severity: 'error',
    path: ['command_template'],
    message: `the program "${program}" was not found on PATH`,
    hint: `install it or fix its name, or write its path (e.g. "./${program}", relative to the ${where})`,
  };
}

function entryKind(path: string): 'missing' | 'file' | 'other' {
  try {
    return statSync(path).isFile() ? 'file' : 'other';
  } catch {
    return 'missing';
  }
}

function fileState(file: string): 'missing' | 'not-executable' | 'executable' {
  try {
    if (!statSync(file).isFile()) return 'not-executable';
  } catch {
    return 'missing';
  }
  try {
    accessSync(file, constants.X_OK);
    return 'executable';
  } catch {
    return 'not-executable';
  }
}

/**
 * `checkProgram` for a `cli` target run in `cwd` (absolute): its
 * `command_template`, with the target's `env.PATH` when it sets one, else
 * `process.env.PATH`. An error for `agentv validate` as for a run, so validate
 * fails exactly where eval would refuse to start.
 */
export function checkTargetProgram(
  target: ResolvedTarget,
  cwd: string,
  options: { scripts?: boolean } = {},
): Issue | undefined {
  const template = target.settings.command_template;
  if (typeof template !== 'string' || hasPlaceholder(template)) return undefined;
  if (fileStateOfDirectory(cwd) !== 'directory') return undefined;
  const env = target.settings.env;
  const ownPath = isRecord(env) && typeof env.PATH === 'string' ? env.PATH : undefined;
  if (ownPath !== undefined && hasPlaceholder(ownPath)) return undefined;
  return checkProgram(template, cwd, ownPath ?? process.env.PATH, options);
}

function fileStateOfDirectory(path: string): 'directory' | 'other' {
  try {
    return statSync(path).isDirectory() ? 'directory' : 'other';
  } catch {
    return 'other';
  }
}
