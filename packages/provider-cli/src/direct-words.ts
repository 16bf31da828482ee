import { isSupportedPlaceholder, LIST_PLACEHOLDERS, type Placeholder } from './placeholders.js';

/** A piece of a word run without a shell: literal text, or the value of a placeholder. */
export type DirectPiece = string | { readonly placeholder: Placeholder };

/** One argument of a command run without a shell: its pieces, joined. */
export type DirectWord = readonly DirectPiece[];

/**
 * The words of `template` when `/bin/sh` would do nothing to it but split it at blanks and put
 * each placeholder's value, byte for byte, in its argument; undefined otherwise, and the shell
 * runs it. That is a template of plain words: blanks between them, and in each word only
 * letters, digits and `_@%+,./:-` (and `=`, except in the first word), with placeholders
 * standing whole or as part of a word, bare or alone in quotes (`{PROMPT}`, `"{PROMPT}"`,
 * `'{PROMPT}'`, `--id={EVAL_ID}`). Nothing the shell would expand, quote, glob, redirect or
 * read as a keyword qualifies, nor a first word naming a shell builtin or keyword (`echo`
 * is the shell's, not `/bin/echo`), nor `{FILES}` and `{ATTACHMENTS}` (one argument per file).
 */
export function directWords(template: string): DirectWord[] | undefined {
  const texts = template.replace(/^[ \t]+|[ \t]+$/g, '').split(/[ \t]+/);
  const words: DirectWord[] = [];
  for (const text of texts) {
    const word = wordPieces(text);
    if (word === undefined) return undefined;
    words.push(word);
  }
  const first = words[0];
  if (first === undefined || first.length !== 1 || typeof first[0] !== 'string') return undefined;
  const program = first[0];
  if (program === '' || program.includes('=') || SHELL_WORDS.has(program)) return undefined;
  return words;
}

/** The value of each word of `words` for a call's `values` (placeholders used have one). */
export function directArgv(
  words: readonly DirectWord[],
  values: Partial<Record<Placeholder, string | readonly string[]>>,
): string[] {
  return words.map((word) =>
    word.length === 1 && typeof word[0] === 'string'
      ? word[0]
      : word
          .map((piece) =>
            typeof piece === 'string' ? piece : (values[piece.placeholder] as string),
          )
          .join(''),
  );
}

// Literal text the shell keeps as it is (no `{`/`}`: bash as /bin/sh expands `a{b,c}`), or a
// placeholder bare, in double quotes or in single quotes.
const PIECE =
  /[A-Za-z0-9_@%+,./:=-]+|\{([A-Z][A-Z0-9_]*)\}|"\{([A-Z][A-Z0-9_]*)\}"|'\{([A-Z][A-Z0-9_]*)\}'/y;

function wordPieces(text: string): DirectWord | undefined {
  if (text === '') return undefined;
  const pieces: DirectPiece[] = [];
  PIECE.lastIndex = 0;
  while (PIECE.lastIndex < text.length) {
    const match = PIECE.exec(text);
    if (match === null) return undefined;
    const name = match[1] ?? match[2] ?? match[3];
    if (name === undefined) {
      pieces.push(match[0]);
      continue;
    }
    if (!isSupportedPlaceholder(name) || LIST_PLACEHOLDERS.includes(name)) return undefined;
    pieces.push({ placeholder: name });
  }
  return pieces;
}

/**
 * Builtins and keywords of dash and bash (and POSIX's list): as a command's first word the
 * shell runs its own, which may differ from a program of the same name on PATH.
 */
const SHELL_WORDS = new Set([
  '.',
  ':',
  'alias',
  'bg',
  'bind',
  'break',
  'builtin',
  'caller',
  'case',
  'cd',
  'chdir',
  'command',
  'compgen',
  'complete',
  'compopt',
  'continue',
  'coproc',
  'declare',
  'dirs',
  'disown',
  'do',
  'done',
  'echo',
  'elif',
  'else',
  'enable',
  'esac',
  'eval',
  'exec',
  'exit',
  'export',
  'false',
  'fc',
  'fg',
  'fi',
  'for',
  'function',
  'getopts',
  'hash',
  'help',
  'history',
  'if',
  'in',
  'jobs',
  'kill',
  'let',
  'local',
  'logout',
  'mapfile',
  'popd',
  'printf',
  'pushd',
  'pwd',
  'read',
  'readarray',
  'readonly',
  'return',
  'select',
  'set',
  'shift',
  'shopt',
  'source',
  'suspend',
  'test',
  'then',
  'time',
  'times',
  'trap',
  'true',
  'type',
  'typeset',
  'ulimit',
  'umask',
  'unalias',
  'unset',
  'until',
  'wait',
  'while',
]);
