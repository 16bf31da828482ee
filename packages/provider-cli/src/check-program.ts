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
  const words = command.trim().split(/\s+/);
  let index = 0;
  while (index < words.length && ASSIGNMENT.test(words[index]!)) index++;
  const word = words[index];
  if (word === undefined || word === '' || !PLAIN_WORD.test(word)) return undefined;
  if (SHELL_WORDS.has(word)) return undefined;
  return word;
}

/**
 * Checks that the program `command` starts exists: a path (`./agent.sh`) must
 * be an executable file relative to `cwd`; a bare name must be an executable
 * file on `PATH` (relative entries resolve against `cwd`). Returns a problem
 * with `path` `['command_template']`, or undefined when the program was found
 * or the command is not clearly a program (a shell snippet, a builtin).
 */
export function checkProgram(
  command: string,
  cwd: string,
  pathVariable: string | undefined,
): Issue | undefined {
  if (process.platform === 'win32') return undefined;
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
export function checkTargetProgram(target: ResolvedTarget, cwd: string): Issue | undefined {
  const template = target.settings.command_template;
  if (typeof template !== 'string' || hasPlaceholder(template)) return undefined;
  if (fileStateOfDirectory(cwd) !== 'directory') return undefined;
  const env = target.settings.env;
  const ownPath = isRecord(env) && typeof env.PATH === 'string' ? env.PATH : undefined;
  if (ownPath !== undefined && hasPlaceholder(ownPath)) return undefined;
  return checkProgram(template, cwd, ownPath ?? process.env.PATH);
}

function fileStateOfDirectory(path: string): 'directory' | 'other' {
  try {
    return statSync(path).isDirectory() ? 'directory' : 'other';
  } catch {
    return 'other';
  }
}
