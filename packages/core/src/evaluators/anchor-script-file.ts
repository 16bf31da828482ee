import path from 'node:path';
import { scriptFileOf, scriptWords } from '../eval-file/check-judge-files.js';
import { shellWord } from '../util/shell-quote.js';

/**
 * `script` with its script file (`./judge.sh`, or an interpreter's first
 * argument: `node ./judges/check.mjs`) made absolute against `evalDir`, so a
 * script that runs elsewhere (in the case's workspace) still finds the file
 * `validate` checked next to the eval file. Every other word is left as
 * written; a script without such a file is returned unchanged.
 */
export function anchorScriptFile(
  script: string | readonly string[],
  evalDir: string,
  /** Where the file is for the script (a copy of it elsewhere); default its absolute path. */
  place: (absolute: string) => string = (absolute) => absolute,
): string | readonly string[] {
  const words = scriptWords(script);
  const found = words === undefined ? undefined : scriptFileOf(words);
  if (found === undefined) return script;
  const absolute = place(path.resolve(evalDir, found.word));
  if (typeof script !== 'string')
    return script.map((word, index) => (index === found.index ? absolute : word));
  // The same words `scriptWords` splits a command line into, with where each is written.
  const match = [...script.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)][found.index];
  if (match?.index === undefined) return script;
  return `${script.slice(0, match.index)}${shellWord(absolute)}${script.slice(match.index + match[0].length)}`;
}
