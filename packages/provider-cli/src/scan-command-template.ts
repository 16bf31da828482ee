import { ExpansionScanner, refuse } from './scan-expansions.js';
import { type ShellWord, SimpleCommand } from './simple-command.js';
import type { Refusal } from './template-refusal.js';
import type {
  Accumulator,
  Context,
  ScannedTemplate,
  Source,
  TemplateSlot,
} from './template-slot.js';

interface WordState extends Accumulator {
  start: number;
  prefix: string;
  prefixDone: boolean;
  quoted: boolean;
  slots: TemplateSlot[];
}

interface PendingHeredoc {
  delimiter: string;
  quoted: boolean;
  stripTabs: boolean;
  start: number;
  end: number;
}

type Redirect = 'file' | 'heredoc' | 'heredoc-strip';

/**
 * Reads a command template as `sh` reads it — quotes, `$(…)`, backquotes,
 * `${…}`, `$((…))`, here-documents, comments, and the words of each simple
 * command — and returns where each placeholder stands. `tokens` is a sticky
 * pattern whose group 1 matches an escape's name and group 2 a placeholder's.
 * `inArguments` reads a fragment that stands among a command's arguments (a
 * `files_format`), so its first word is not a command name.
 *
 * The scan only decides how each value is referenced and which places are
 * refused; values never enter the command text, so a mistake here can at worst
 * refuse a safe template or pass a value to the wrong place, never run it.
 */
export function scanCommandTemplate(
  template: string,
  tokens: RegExp,
  inArguments = false,
): ScannedTemplate {
  const scanner = new CommandScanner(tokens);
  const source: Source = { text: template };
  scanner.commands(source, 0, { backquotes: [], collect: () => {} }, false, inArguments);
  const result: ScannedTemplate = { slots: scanner.slots.sort((a, b) => a.start - b.start) };
  if (scanner.unclosed) result.unclosed = scanner.unclosed;
  return result;
}

/** The word and command level of the scan: words, operators, comments, here-documents. */
class CommandScanner extends ExpansionScanner {
  commands(
    source: Source,
    from: number,
    ctx: Context,
    closed: boolean,
    inArguments = false,
  ): number {
    const text = source.text;
    const command = new SimpleCommand();
    if (inArguments) command.startInArguments();
    let word: WordState | undefined;
    let redirect: Redirect | undefined;
    let redirectStart = 0;
    let heredocs: PendingHeredoc[] = [];
    let depth = 0;
    // `case … in`: a case word was read, or its patterns (`a|b)`) are expected.
    let caseSubject = false;
    let expectPattern = false;
    let openCases = 0;

    const inner: Context = {
      backquotes: ctx.backquotes,
      collect: (slot) => {
        word?.slots.push(slot);
        ctx.collect(slot);
      },
    };
    const begin = (at: number): WordState => {
      word ??= {
        start: at,
        text: '',
        expands: false,
        prefix: '',
        prefixDone: false,
        quoted: false,
        slots: [],
      };
      return word;
    };
    const separate = () => {
      command.reset();
      redirect = undefined;
    };
    const finish = (end: number) => {
      const done = word;
      word = undefined;
      if (done === undefined) return;
      if (redirect !== undefined) {
        if (redirect !== 'file') {
          const range = { start: this.at(source, redirectStart), end: this.end(source, end) };
          refuse(done.slots, { kind: 'heredoc-delimiter', ...range });
          heredocs.push({
            delimiter: done.text,
            quoted: done.quoted,
            stripTabs: redirect === 'heredoc-strip',
            ...range,
          });
        }
        redirect = undefined;
        return;
      }
      const plain = !done.quoted && !done.expands ? done.text : undefined;
      if (expectPattern) {
        if (plain === 'esac') {
          openCases--;
          expectPattern = false;
          separate();
        }
        return;
      }
      if (plain === 'in' && caseSubject) {
        caseSubject = false;
        expectPattern = true;
        openCases++;
        return;
      }
      if (plain === 'case' && command.atCommandStart) caseSubject = true;
      if (plain === 'esac' && command.atCommandStart && openCases > 0) openCases--;
      const shellWord: ShellWord = {
        literal: done.expands ? undefined : done.text,
        prefix: done.prefix,
        quoted: done.quoted,
        hasPlaceholder: done.slots.length > 0,
      };
      const refusal = command.word(shellWord);
      if (refusal) {
        refuse(done.slots, {
          ...refusal,
          start: this.at(source, done.start),
          end: this.end(source, end),
        });
      }
    };

    let index = from;
    while (index < text.length) {
      const char = text[index]!;
      const token = this.token(source, index);
      if (token) {
        const current = begin(index);
        current.prefixDone = true;
        index = this.addToken(source, index, token, 'word', inner, current);
        continue;
      }
      if (command.inTest && '<>()&|!'.includes(char)) {
        const current = begin(index);
        current.text += char;
        index++;
        continue;
      }
      if (char === ' ' || char === '\t') {
        finish(index);
        index++;
        continue;
      }
      if (char === '\n') {
        finish(index);
        separate();
        index++;
        if (heredocs.length > 0) {
          index = this.heredocBodies(source, index, heredocs, inner);
          heredocs = [];
        }
        continue;
      }
      if (char === '#' && word === undefined) {
        const newline = text.indexOf('\n', index);
        const end = newline === -1 ? text.length : newline;
        this.region(source, index, inner, 'comment', (region) =>
          this.plainText(source, index, end, region),
        );
        index = end;
        continue;
      }
      if (char === '\\') {
        if (text[index + 1] === '\n') {
          index += 2;
          continue;
        }
        const current = begin(index);
        current.quoted = true;
        current.prefixDone = true;
        current.text += text[index + 1] ?? '';
        index += 2;
        continue;
      }
      if (char === "'") {
        const current = begin(index);
        current.quoted = true;
        current.prefixDone = true;
        index = this.singleQuoted(source, index, inner, current);
        continue;
      }
      if (char === '"') {
        const current = begin(index);
        current.quoted = true;
        current.prefixDone = true;
        index = this.doubleQuoted(source, index + 1, inner, current);
        continue;
      }
      if (char === '$' || char === '`') {
        const current = begin(index);
        current.prefixDone = true;
        index = this.expansion(source, index, inner, current, false);
        continue;
      }
      if ((char === '<' || char === '>') && text[index + 1] === '(') {
        // Process substitution (bash): a command list inside a word.
        const current = begin(index);
        current.prefixDone = true;
        current.expands = true;
        index = this.commands(source, index + 2, inner, true);
        continue;
      }
      if (char === '<' || char === '>') {
        // `2>file`: the digits are the descriptor, not a word.
        const current = word as WordState | undefined;
        if (current && !current.quoted && !current.expands && /^\d+$/.test(current.text)) {
          word = undefined;
        } else {
          finish(index);
        }
        redirectStart = index;
        const operator = /^(<<<|<<-|<<|<>|<&|>&|>>|>\||<|>)/.exec(text.slice(index, index + 3))![0];
        redirect = operator === '<<' ? 'heredoc' : operator === '<<-' ? 'heredoc-strip' : 'file';
        index += operator.length;
        continue;
      }
      if (char === '&' && text[index + 1] === '>') {
        finish(index);
        redirectStart = index;
        redirect = 'file';
        index += text[index + 2] === '>' ? 3 : 2;
        continue;
      }
      if (char === ';' || char === '&' || char === '|') {
        finish(index);
        separate();
        const operator = /^(;;&|;;|;&|&&|\|\||\|&|;|&|\|)/.exec(text.slice(index, index + 3))![0];
        if (operator.startsWith(';;') || operator === ';&') expectPattern = openCases > 0;
        index += operator.length;
        continue;
      }
      if (char === '(') {
        finish(index);
        if (command.atCommandStart && text[index + 1] === '(' && !expectPattern) {
          // `((…))`: a bash arithmetic command.
          const start = index;
          index = this.region(source, start, inner, 'arithmetic', (region) =>
            this.arithmetic(source, start + 2, region),
          );
          command.reset();
          continue;
        }
        if (!expectPattern) {
          depth++;
          separate();
        }
        index++;
        continue;
      }
      if (char === ')') {
        finish(index);
        index++;
        if (expectPattern) {
          expectPattern = false;
          separate();
          continue;
        }
        if (depth === 0 && closed) return index;
        depth = Math.max(0, depth - 1);
        separate();
        continue;
      }
      const current = begin(index);
      current.text += char;
      if (!current.prefixDone) current.prefix += char;
      index++;
    }
    finish(text.length);
    if (closed) this.open(source, from - 2, '$(');
    return text.length;
  }

  /** Reads the bodies of the here-documents of the line that just ended; returns the offset after them. */
  private heredocBodies(
    source: Source,
    from: number,
    heredocs: readonly PendingHeredoc[],
    ctx: Context,
  ): number {
    const text = source.text;
    let index = from;
    for (const heredoc of heredocs) {
      let line = index;
      let bodyEnd = text.length;
      let next = text.length;
      while (line < text.length) {
        const newline = text.indexOf('\n', line);
        const lineEnd = newline === -1 ? text.length : newline;
        let content = text.slice(line, lineEnd);
        if (heredoc.stripTabs) content = content.replace(/^\t+/, '');
        if (content === heredoc.delimiter) {
          bodyEnd = line;
          next = newline === -1 ? text.length : newline + 1;
          break;
        }
        line = lineEnd + 1;
      }
      if (heredoc.quoted) {
        const refusal: Refusal = { kind: 'quoted-heredoc', start: heredoc.start, end: heredoc.end };
        const found: TemplateSlot[] = [];
        this.plainText(source, index, bodyEnd, { ...ctx, collect: (slot) => found.push(slot) });
        refuse(found, refusal);
        for (const slot of found) ctx.collect(slot);
      } else {
        this.heredocBody(source, index, bodyEnd, ctx);
      }
      index = next;
    }
    return index;
  }

  /** An unquoted here-document body: expanded like double quotes, but `"` is an ordinary character. */
  private heredocBody(source: Source, from: number, to: number, ctx: Context): void {
    const text = source.text;
    const word: Accumulator = { text: '', expands: false };
    const bounded: Source = {
      text: text.slice(0, to),
      ...(source.origin ? { origin: source.origin } : {}),
    };
    let index = from;
    while (index < to) {
      const char = text[index]!;
      const token = this.token(bounded, index);
      if (token) {
        index = this.addToken(bounded, index, token, 'heredoc', ctx, word);
        continue;
      }
      if (char === '\\') {
        index += 2;
        continue;
      }
      if (char === '$' || char === '`') {
        index = this.expansion(bounded, index, ctx, word, false);
        continue;
      }
      index++;
    }
  }
}
