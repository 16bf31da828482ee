import type { RefusalKind } from './template-refusal.js';

/** One word of a simple command, as the template scanner read it. */
export interface ShellWord {
  /** The word after quote removal when nothing in it expands; undefined otherwise. */
  literal: string | undefined;
  /** Its leading unquoted literal text, up to the first quote, expansion or placeholder. */
  prefix: string;
  /** True when part of it was quoted or escaped: such a word is never a keyword. */
  quoted: boolean;
  /** True when it holds a placeholder (directly, or in a `$(…)` or backquotes inside it). */
  hasPlaceholder: boolean;
}

/** Why the placeholders of a word are refused: the kind and the command that would parse them. */
export interface WordRefusal {
  kind: RefusalKind;
  command?: string;
}

/** Shells whose `-c` script is parsed as shell code. */
const SHELLS = new Set([
  'sh',
  'bash',
  'rbash',
  'dash',
  'zsh',
  'ksh',
  'ksh93',
  'mksh',
  'oksh',
  'pdksh',
  'ash',
  'yash',
  'posh',
  'fish',
  'csh',
  'tcsh',
]);

/** Programs whose `-c COMMAND` option hands COMMAND to a shell. */
const COMMAND_OPTION_PROGRAMS = new Set(['su', 'runuser', 'script', 'flock']);

/** Shell options that take the next word as their argument. */
const SHELL_OPTIONS_WITH_ARGUMENT = new Set(['-o', '+o', '-O', '+O', '--rcfile', '--init-file']);

/** A shell option word that includes `c`: `-c`, `-lc`, `-ec`, `-xc`… */
const SHELL_COMMAND_OPTION = /^-[A-Za-z]*c[A-Za-z]*$/;

/** Builtins that parse, evaluate or source what they are given. */
const EVALUATING = new Set(['eval', 'trap', 'let', 'alias', '.', 'source']);

/**
 * Interpreters of other languages and the options whose argument is code they run
 * (`python3 -c CODE`, `node -e CODE`, `deno eval CODE`).
 */
const INTERPRETER_CODE_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  python: ['-c'],
  python2: ['-c'],
  python3: ['-c'],
  pypy: ['-c'],
  pypy3: ['-c'],
  node: ['-e', '--eval', '-p', '--print', '-pe'],
  nodejs: ['-e', '--eval', '-p', '--print', '-pe'],
  bun: ['-e', '--eval', '-p', '--print'],
  deno: ['eval'],
  perl: ['-e', '-E', '-ne', '-pe', '-nE', '-pE'],
  ruby: ['-e', '-ne', '-pe'],
  php: ['-r'],
  R: ['-e'],
  Rscript: ['-e'],
  lua: ['-e'],
  luajit: ['-e'],
  julia: ['-e', '--eval'],
  pwsh: ['-c', '-Command', '-command'],
  powershell: ['-c', '-Command', '-command'],
  osascript: ['-e'],
};

/** Commands that join their arguments into one command line for a shell. */
const JOINING = new Set(['ssh', 'watch']);

/**
 * Builtins that take variable names, which bash evaluates (`a[$(…)]` runs a
 * command): every argument, or for the `declare` family every argument that is
 * not a `NAME=value` assignment.
 */
const NAME_TAKING = new Set(['read', 'unset', 'mapfile', 'readarray', 'getopts', 'wait']);
const DECLARING = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);

/** Commands that run the program named by a later word, and the words they take first. */
interface Wrapper {
  /** Options that take the next word as their argument. */
  options?: readonly string[];
  /** Operands before the program (`timeout 5 prog`). */
  operands?: number;
  /** `NAME=value` words before the program (`env A=1 prog`). */
  assignments?: boolean;
}

const WRAPPERS: Record<string, Wrapper> = {
  builtin: {},
  command: {},
  exec: { options: ['-a'] },
  nohup: {},
  time: { options: ['-f', '-o'] },
  env: { options: ['-u', '-C', '--unset', '--chdir'], assignments: true },
  sudo: {
    options: ['-u', '-g', '-h', '-p', '-C', '-D', '-r', '-t', '-T', '-U', '--user', '--group'],
    assignments: true,
  },
  doas: { options: ['-u', '-C'] },
  nice: { options: ['-n'] },
  ionice: { options: ['-c', '-n', '-p', '-P', '-u'] },
  setsid: {},
  stdbuf: { options: ['-i', '-o', '-e'] },
  timeout: { options: ['-s', '-k', '--signal', '--kill-after'], operands: 1 },
  taskset: { operands: 1 },
  chroot: { operands: 1 },
  xargs: { options: ['-a', '-d', '-E', '-e', '-I', '-i', '-L', '-l', '-n', '-P', '-s'] },
  unbuffer: {},
  chronic: {},
};

/** Reserved words after which a command name is still expected. */
const COMMAND_KEYWORDS = new Set([
  'if',
  'then',
  'elif',
  'else',
  'fi',
  'do',
  'done',
  'while',
  'until',
  '!',
  '{',
  '}',
  'esac',
]);

/** Reserved words whose following words are data, not commands (`for x in …`). */
const DATA_KEYWORDS = new Set(['for', 'select', 'case', 'in', 'function']);

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

type State = 'start' | 'wrapper' | 'args' | 'data' | 'test';

/**
 * Follows the words of one simple command (`env A=1 sh -c '…' x`) and says which
 * words hold a value the command would run or parse as code: the command name,
 * the program a wrapper runs, the script of a shell's `-c`, the arguments of
 * `eval`/`ssh`/…, and the words of a `[[ … ]]` test. A shell's `-c` counts
 * wherever the shell's name stands in the command (`docker exec box sh -c …`);
 * words after the script are the script's positional parameters, which are safe.
 */
export class SimpleCommand {
  private state: State = 'start';
  private wrapper: Wrapper | undefined;
  /** Words still to skip as a wrapper's option arguments or leading operands. */
  private skip = 0;
  private operands = 0;
  /** The command that runs (after wrappers); undefined until known or when it is not literal. */
  private command: string | undefined;
  /** A shell named in this command: reading its options, expecting its script, or past it. */
  private shell: 'none' | 'options' | 'script' | 'operands' = 'none';
  private shellName = '';
  /** The shell is the command itself, so its first operand is a script file it runs. */
  private shellRuns = false;
  private skipShellOption = false;
  /** `su`, `runuser`…: a program named in this command whose `-c` takes a shell command. */
  private optionProgram: string | undefined;
  /** A `su -c`-style option was the previous word: this word is a shell command. */
  private commandOption: string | undefined;
  /** The command's previous argument, when literal (`-v` before a name). */
  private previous: string | undefined;
  private firstArgument = false;

  /** A new simple command starts (after `;`, `|`, `&&`, a newline, `(`…). */
  reset(): void {
    this.state = 'start';
    this.wrapper = undefined;
    this.skip = 0;
    this.operands = 0;
    this.command = undefined;
    this.shell = 'none';
    this.shellName = '';
    this.shellRuns = false;
    this.skipShellOption = false;
    this.optionProgram = undefined;
    this.commandOption = undefined;
    this.previous = undefined;
    this.firstArgument = false;
  }

  /** Reads words that stand among a command's arguments (a `files_format`): no command name comes. */
  startInArguments(): void {
    this.state = 'args';
  }

  /** True while the next word may be a reserved word or the command name. */
  get atCommandStart(): boolean {
    return this.state === 'start';
  }

  /** True inside `[[ … ]]`, where `<`, `>`, `(`, `&&`… are part of the test. */
  get inTest(): boolean {
    return this.state === 'test';
  }

  /** Reads the next word; returns why its placeholders are refused, if they are. */
  word(word: ShellWord): WordRefusal | undefined {
    const shellRefusal = this.shellWord(word);
    return this.positionWord(word) ?? shellRefusal;
  }

  private positionWord(word: ShellWord): WordRefusal | undefined {
    const keyword = word.quoted ? undefined : word.literal;
    switch (this.state) {
      case 'test':
        if (keyword === ']]') this.state = 'args';
        return word.hasPlaceholder ? { kind: 'arithmetic' } : undefined;
      case 'data':
        return undefined;
      case 'start':
        if (keyword !== undefined && COMMAND_KEYWORDS.has(keyword)) return undefined;
        if (keyword !== undefined && DATA_KEYWORDS.has(keyword)) {
          this.state = 'data';
          return undefined;
        }
        if (keyword === '[[') {
          this.state = 'test';
          return undefined;
        }
        if (ASSIGNMENT.test(word.prefix)) return undefined;
        if (word.hasPlaceholder) return { kind: 'program' };
        this.program(word);
        return undefined;
      case 'wrapper':
        return this.wrapperWord(word);
      case 'args': {
        const previous = this.previous;
        const first = this.firstArgument;
        this.previous = word.literal;
        this.firstArgument = false;
        if (!word.hasPlaceholder || this.command === undefined) return undefined;
        return argumentRefusal(this.command, word, previous, first);
      }
    }
  }

  /** The word that names the program: a wrapper, or the command that runs. */
  private program(word: ShellWord): void {
    const name = word.literal === undefined ? undefined : basename(word.literal);
    const wrapper = name === undefined ? undefined : WRAPPERS[name];
    if (wrapper !== undefined) {
      this.state = 'wrapper';
      this.wrapper = wrapper;
      this.skip = 0;
      this.operands = 0;
      return;
    }
    this.state = 'args';
    this.command = name;
    this.previous = undefined;
    this.firstArgument = true;
    if (name !== undefined && SHELLS.has(name)) this.shellRuns = true;
    // A program named by an expansion (`"$SHELL" -c …`) may be a shell.
    if (name === undefined) this.startShell('$…');
  }

  private wrapperWord(word: ShellWord): WordRefusal | undefined {
    const wrapper = this.wrapper!;
    if (this.skip > 0) {
      this.skip--;
      return undefined;
    }
    if (word.prefix.startsWith('-') && word.prefix.length > 1) {
      if (word.literal !== undefined && wrapper.options?.includes(word.literal)) this.skip = 1;
      return undefined;
    }
    if (wrapper.assignments && ASSIGNMENT.test(word.prefix)) return undefined;
    if (this.operands < (wrapper.operands ?? 0)) {
      this.operands++;
      return undefined;
    }
    if (word.hasPlaceholder) return { kind: 'program' };
    this.program(word);
    return undefined;
  }

  /** Tracks a shell (or `su`…) named anywhere in the command, and refuses its `-c` script. */
  private shellWord(word: ShellWord): WordRefusal | undefined {
    if (this.commandOption !== undefined) {
      const command = this.commandOption;
      this.commandOption = undefined;
      return word.hasPlaceholder ? { kind: 'shell-script', command } : undefined;
    }
    if (this.state === 'data' || this.state === 'test') return undefined;
    if (this.state === 'start' && ASSIGNMENT.test(word.prefix)) return undefined;
    const text = word.literal;
    if (text !== undefined) {
      const name = basename(text);
      if (SHELLS.has(name)) {
        this.startShell(name);
        return undefined;
      }
      if (COMMAND_OPTION_PROGRAMS.has(name)) {
        this.optionProgram = name;
        return undefined;
      }
    }
    if (this.optionProgram !== undefined && this.shell === 'none') {
      if (text === '-c' || text === '--command' || text === '--session-command') {
        this.commandOption = this.optionProgram;
      } else if (word.hasPlaceholder && /^(-c|--command=|--session-command=)/.test(word.prefix)) {
        return { kind: 'shell-script', command: this.optionProgram };
      }
      return undefined;
    }
    if (this.shell !== 'options' && this.shell !== 'script') return undefined;
    if (this.skipShellOption) {
      this.skipShellOption = false;
      return undefined;
    }
    if (/^[-+]./.test(word.prefix)) {
      if (text !== undefined && (SHELL_COMMAND_OPTION.test(text) || text === '--command')) {
        this.shell = 'script';
      } else if (text !== undefined && SHELL_OPTIONS_WITH_ARGUMENT.has(text)) {
        this.skipShellOption = true;
      } else if (word.hasPlaceholder && this.shell === 'script') {
        // An option word made from a value could be read as the script.
        return { kind: 'shell-script', command: this.shellName };
      }
      return undefined;
    }
    const script = this.shell === 'script';
    this.shell = 'operands';
    if (!word.hasPlaceholder) return undefined;
    if (script) return { kind: 'shell-script', command: this.shellName };
    // `bash {PROMPT}` runs the file the value names.
    return this.shellRuns ? { kind: 'program' } : undefined;
  }

  private startShell(name: string): void {
    this.shell = 'options';
    this.shellName = name;
    this.shellRuns = false;
    this.skipShellOption = false;
  }
}

/** Why an argument holding a placeholder is refused for the command it belongs to, if it is. */
function argumentRefusal(
  command: string,
  word: ShellWord,
  previous: string | undefined,
  first: boolean,
): WordRefusal | undefined {
  if (EVALUATING.has(command)) return { kind: 'evaluated', command };
  const codeOptions = INTERPRETER_CODE_OPTIONS[command];
  if (codeOptions !== undefined && previous !== undefined && codeOptions.includes(previous)) {
    return { kind: 'interpreter-code', command };
  }
  if (JOINING.has(command)) return { kind: 'joined-command', command };
  if (NAME_TAKING.has(command)) return { kind: 'variable-name', command };
  if (DECLARING.has(command) && !ASSIGNMENT.test(word.prefix)) {
    return { kind: 'variable-name', command };
  }
  // printf's first argument may be `-v NAME`; `test -v NAME` / `[ -R NAME ]` take a name.
  if (command === 'printf' && (first || previous === '-v')) {
    return { kind: 'variable-name', command };
  }
  if ((command === 'test' || command === '[') && (previous === '-v' || previous === '-R')) {
    return { kind: 'variable-name', command };
  }
  return undefined;
}

function basename(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? path : path.slice(slash + 1);
}
