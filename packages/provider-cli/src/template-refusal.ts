/**
 * Why a placeholder stands where AgentV cannot prove its value is never parsed
 * as code: each kind names a shell construct (or a command) that would read the
 * value as code, or would not expand it at all.
 */
export type RefusalKind =
  /** `'… {PROMPT} …'`: usually a script for another shell (`sh -c '…'`, `ssh host '…'`). */
  | 'single-quoted-text'
  /** `$'…'` or `$"…"` quoting (bash), whose rules differ between shells. */
  | 'special-quotes'
  /** The script of `sh -c` (or `su -c`, …): the inner shell parses it. */
  | 'shell-script'
  /** An argument of `eval`, `trap`, `let`, `alias`, `.` or `source`. */
  | 'evaluated'
  /** The code of `python3 -c`, `node -e`, `perl -e`…: the interpreter runs it. */
  | 'interpreter-code'
  /** An argument of `ssh` or `watch`, which join their arguments into one command for a shell. */
  | 'joined-command'
  /** A variable name for `read`, `unset`, `declare`, `printf -v`, `test -v`…, which bash evaluates. */
  | 'variable-name'
  /** Anywhere in a template that declares an integer or nameref variable, whose assignments bash evaluates. */
  | 'declared-attribute'
  /** The command name, a wrapped program (`env {PROMPT}`) or a shell's script file. */
  | 'program'
  /** Inside `${…}`. */
  | 'parameter-expansion'
  /** Inside `$((…))`, `((…))` or `[[ … ]]`, which bash evaluates as arithmetic. */
  | 'arithmetic'
  /** In the body of a here-document whose delimiter is quoted (`<<'EOF'`). */
  | 'quoted-heredoc'
  /** The delimiter word of a here-document. */
  | 'heredoc-delimiter'
  /** In a `#` comment. */
  | 'comment';

/** A refused placeholder's context: the kind, and the construct it stands in. */
export interface Refusal {
  kind: RefusalKind;
  /** The command that would parse the value (`sh`, `eval`, `ssh`), for the kinds that have one. */
  command?: string;
  /** The construct (quoted string, word, `${…}`, comment…) in the template: start and end offsets. */
  start: number;
  end: number;
}

/** One problem of a template: a message and a hint, as an `Issue` carries them. */
export interface TemplateProblem {
  message: string;
  hint: string;
}

const EXCERPT_CHARS = 60;

/** `su -c`-style programs: their command string takes no arguments after it. */
const COMMAND_OPTION_PROGRAMS = new Set(['su', 'runuser', 'script', 'flock']);

/** The construct a refusal points at, shortened for a one-line message. */
export function excerpt(template: string, refusal: Pick<Refusal, 'start' | 'end'>): string {
  const text = template.slice(refusal.start, refusal.end).replaceAll('\n', '\\n');
  return text.length <= EXCERPT_CHARS ? text : `${text.slice(0, EXCERPT_CHARS - 1)}…`;
}

/**
 * The problem for placeholders (`{PROMPT}`, or several) refused for one reason in
 * one construct: what and where, why it is unsafe, and the safe form in the hint.
 * `variableName` is the variable the hint names (default `AGENTV_<first name>`).
 */
export function refusalProblem(
  names: readonly string[],
  refusal: Refusal,
  template: string,
  variableName = `AGENTV_${names[0] ?? 'PROMPT'}`,
): TemplateProblem {
  const first = names[0] ?? 'PROMPT';
  const subject = listNames(names);
  const verb = names.length > 1 ? 'are' : 'is';
  const where = excerpt(template, refusal);
  const variable = `$${variableName}`;
  const nestedShell = `for text around it use double quotes ("Q: {${first}}"); for a nested shell, reference the variable inside it so the inner shell expands it (sh -c 'agent "${variable}"')`;
  const command = refusal.command ?? 'sh';
  switch (refusal.kind) {
    case 'single-quoted-text':
      return {
        message: `${subject} ${verb} inside single quotes with other text (${where}): such a string is usually a script for another shell, which would run the value as code`,
        hint: nestedShell,
      };
    case 'special-quotes':
      return {
        message: `${subject} ${verb} inside ${where.startsWith('$"') ? '$"…"' : "$'…'"} quotes (${where}), whose rules differ between shells`,
        hint: `use double quotes ("… {${first}} …")`,
      };
    case 'shell-script': {
      // A program named by a variable (`"$SHELL" -c …`) may be a shell.
      const named = command.startsWith('$');
      const shell = named ? 'sh' : command;
      const reference = `reference the variable inside the script so the inner shell expands it (${shell} -c 'agent "${variable}"')`;
      return {
        message: named
          ? `${subject} ${verb} in the script of a -c option (${where}) of a program named by a variable, which may be a shell that would parse it as code`
          : `${subject} ${verb} in the script of "${command} -c" (${where}), which the inner shell would parse as code`,
        hint: COMMAND_OPTION_PROGRAMS.has(command)
          ? reference
          : `${reference}, or pass the value as an argument after the script (${shell} -c 'agent "$1"' sh {${first}})`,
      };
    }
    case 'evaluated':
      return evaluatedProblem(subject, verb, command, where, first);
    case 'interpreter-code':
      return {
        message: `${subject} ${verb} in the code ${command} runs (${where}), which would run the value as ${command} code`,
        hint: `read the variable inside the code instead (${codeReference(command, variableName)}), or pass the value as an argument after the code`,
      };
    case 'joined-command':
      return {
        message: `${subject} ${verb} an argument of ${command} (${where}), which joins its arguments into one command for ${command === 'ssh' ? 'the remote shell' : 'sh -c'} to parse`,
        hint:
          command === 'ssh'
            ? `send the value on stdin instead (ssh HOST agent < {${first === 'PROMPT' ? 'PROMPT_FILE' : 'INPUT_FILE'}})`
            : `run the command without ${command}, or from a script that reads "${variable}"`,
      };
    case 'variable-name':
      return {
        message: `${subject} ${verb} ${command === 'printf' ? 'the format (or -v name) of printf' : `a variable name for ${command}`} (${where}), which bash evaluates as code when it holds a subscript (a[$(…)] runs a command)`,
        hint:
          command === 'printf'
            ? `print the value with a fixed format (printf '%s' {${first}})`
            : `pass the value as data, not as a name (X={${first}}, or read "${variable}" directly)`,
      };
    case 'declared-attribute':
      return {
        message: `${subject} ${verb} in a template that declares an integer or nameref variable (${where}), whose assignments bash evaluates as code`,
        hint: 'drop the -i / -n attribute, or compute in the agent instead',
      };
    case 'program':
      return {
        message: `${subject} ${verb} where the program or script to run is named (${where}), so the value would choose what runs`,
        hint: `name the program yourself and pass the value as an argument (agent {${first}})`,
      };
    case 'parameter-expansion':
      return {
        message: `${subject} ${verb} inside a parameter expansion (${where}), whose quoting rules differ between shells`,
        hint: `use the variable in the expansion instead ("\${X:-${variable}}")`,
      };
    case 'arithmetic':
      return {
        message: `${subject} ${verb} inside an arithmetic expression or [[ … ]] test (${where}), which bash evaluates as code (a[$(…)] runs a command)`,
        hint: 'compute or compare in the agent instead, or use [ … ] (test), which does not evaluate its operands',
      };
    case 'quoted-heredoc':
      return {
        message: `${subject} ${verb} in a here-document with a quoted delimiter (${where}), whose body the shell does not expand`,
        hint: `unquote the delimiter (<<EOF): AgentV then passes the value as \${${variableName}}, and no line of it can end the here-document`,
      };
    case 'heredoc-delimiter':
      return {
        message: `${subject} ${verb} the delimiter of a here-document (${where})`,
        hint: 'use a fixed word such as EOF',
      };
    case 'comment':
      return {
        message: `${subject} ${verb} inside a # comment (${where})`,
        hint: `remove it, or write {{${first}}} for a literal {${first}}`,
      };
  }
}

function evaluatedProblem(
  subject: string,
  verb: string,
  command: string,
  where: string,
  first: string,
): TemplateProblem {
  const what =
    command === 'let'
      ? 'evaluates its arguments as arithmetic, which bash can turn into commands'
      : command === '.' || command === 'source'
        ? 'runs the file its argument names'
        : command === 'trap'
          ? 'runs its action as shell code later'
          : 'parses its arguments as shell code';
  return {
    message: `${subject} ${verb} an argument of ${command} (${where}), which ${what}`,
    hint: `run the command directly, without ${command}: AgentV passes {${first}} as one word that is never parsed`,
  };
}

/** How code of `interpreter` reads environment variable `name`. */
function codeReference(interpreter: string, name: string): string {
  if (interpreter.startsWith('python') || interpreter.startsWith('pypy')) {
    return `os.environ["${name}"]`;
  }
  if (interpreter === 'node' || interpreter === 'nodejs' || interpreter === 'bun') {
    return `process.env.${name}`;
  }
  if (interpreter === 'deno') return `Deno.env.get("${name}")`;
  if (interpreter === 'perl') return `$ENV{${name}}`;
  if (interpreter === 'ruby') return `ENV["${name}"]`;
  if (interpreter === 'php') return `getenv("${name}")`;
  if (interpreter === 'R' || interpreter === 'Rscript') return `Sys.getenv("${name}")`;
  if (interpreter === 'lua' || interpreter === 'luajit') return `os.getenv("${name}")`;
  if (interpreter === 'julia') return `ENV["${name}"]`;
  if (interpreter === 'pwsh' || interpreter === 'powershell') return `$env:${name}`;
  return `the ${name} environment variable`;
}

function listNames(names: readonly string[]): string {
  const shown = names.map((name) => `{${name}}`);
  if (shown.length <= 1) return shown[0] ?? '';
  return `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}
