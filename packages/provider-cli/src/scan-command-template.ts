import { type ShellWord, SimpleCommand } from './simple-command.js';
import type { Refusal, RefusalKind } from './template-refusal.js';

/**
 * How the shell reads the place a placeholder stands, which decides the form of
 * the variable reference it becomes: `word` (unquoted, alone or inside a word)
 * and `single` (`'{PROMPT}'`, the slot spanning the quotes) take `"$VAR"`;
 * `quoted` (inside `"…"`) and `heredoc` (an unquoted here-document body) take `${VAR}`.
 */
export type SlotForm = 'word' | 'quoted' | 'single' | 'heredoc';

/** A placeholder (`{NAME}`) or an escape (`{{NAME}}`, written as `{NAME}`) in a template. */
export interface TemplateSlot {
  kind: 'placeholder' | 'escape';
  name: string;
  /** Offsets in the template: the token, or for `single` the quoted string around it. */
  start: number;
  end: number;
  form: SlotForm;
  /**
   * The backquoted command substitutions around it, outermost first: true for one
   * inside double quotes. Text put there is escaped once per level.
   */
  backquotes: readonly boolean[];
  /** Set when AgentV cannot prove the value would never be parsed as code there. */
  refusal?: Refusal;
}

/** What `scanCommandTemplate` found. */
export interface ScannedTemplate {
  /** Every placeholder and escape, in template order. */
  slots: TemplateSlot[];
  /** The first quote or substitution left open (`"`, `'`, `$(`, `` ` ``…) and its offset. */
  unclosed?: { what: string; at: number };
}

/** What a scan reads: the template, or the text of a backquoted substitution inside it. */
interface Source {
  text: string;
  /** The template offset of each character (backquotes remove backslashes). */
  origin?: readonly number[];
}

interface Context {
  backquotes: readonly boolean[];
  /** Receives every placeholder found, for the words and regions around it. */
  collect: (slot: TemplateSlot) => void;
}

/** Text and expansions of a word (or a quoted part of one) as it is read. */
interface Accumulator {
  text: string;
  expands: boolean;
}

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
  const scanner = new Scanner(tokens);
  const source: Source = { text: template };
  scanner.commands(source, 0, { backquotes: [], collect: () => {} }, false, inArguments);
  const result: ScannedTemplate = { slots: scanner.slots.sort((a, b) => a.start - b.start) };
  if (scanner.unclosed) result.unclosed = scanner.unclosed;
  return result;
}

class Scanner {
  readonly slots: TemplateSlot[] = [];
  unclosed: { what: string; at: number } | undefined;

  constructor(private readonly tokens: RegExp) {}

  /**
   * Reads commands from `from` until the end of `source`, or (`closed`) until the
   * `)` that ends a `$(…)`; returns the offset after it.
   */
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

  /** `'…'`: exactly one placeholder becomes a `single` slot; any other placeholder is refused. */
  private singleQuoted(source: Source, from: number, ctx: Context, word: Accumulator): number {
    const text = source.text;
    const close = text.indexOf("'", from + 1);
    if (close === -1) {
      this.open(source, from, "'");
      return text.length;
    }
    const token = this.token(source, from + 1);
    if (token?.[2] !== undefined && from + 1 + token[0].length === close) {
      this.addSlot(source, 'placeholder', token[2], from, close + 1, 'single', ctx);
      word.expands = true;
      return close + 1;
    }
    return this.region(
      source,
      from,
      ctx,
      'single-quoted-text',
      (region) => this.plainText(source, from + 1, close, region, word) + 1,
    );
  }

  /** `"…"` from after its opening quote; returns the offset after the closing one. */
  private doubleQuoted(source: Source, from: number, ctx: Context, word: Accumulator): number {
    const text = source.text;
    let index = from;
    while (index < text.length) {
      const char = text[index]!;
      const token = this.token(source, index);
      if (token) {
        index = this.addToken(source, index, token, 'quoted', ctx, word);
        continue;
      }
      if (char === '"') return index + 1;
      if (char === '\\') {
        const next = text[index + 1] ?? '';
        word.text += '$`"\\\n'.includes(next) ? next : `\\${next}`;
        index += 2;
        continue;
      }
      if (char === '$' || char === '`') {
        index = this.expansion(source, index, ctx, word, true);
        continue;
      }
      word.text += char;
      index++;
    }
    this.open(source, from - 1, '"');
    return text.length;
  }

  /**
   * An expansion at `from` (a `$` or a backquote) inside a word or double quotes:
   * `$((…))`, `$(…)`, `${…}`, `$'…'`, `$"…"`, `` `…` `` or `$NAME`.
   */
  private expansion(
    source: Source,
    from: number,
    ctx: Context,
    word: Accumulator,
    inDoubleQuotes: boolean,
  ): number {
    const text = source.text;
    word.expands = true;
    if (text[from] === '`') return this.backquoted(source, from, ctx, inDoubleQuotes);
    const next = text[from + 1];
    if (next === '(' && text[from + 2] === '(') {
      return this.region(source, from, ctx, 'arithmetic', (region) =>
        this.arithmetic(source, from + 3, region),
      );
    }
    if (next === '(') return this.commands(source, from + 2, ctx, true);
    if (next === '{') {
      return this.region(source, from, ctx, 'parameter-expansion', (region) =>
        this.parameter(source, from + 2, region, inDoubleQuotes),
      );
    }
    if (next === "'" && !inDoubleQuotes) {
      return this.region(source, from, ctx, 'special-quotes', (region) => {
        let index = from + 2;
        while (index < text.length && text[index] !== "'") {
          if (this.token(source, index)) {
            index = this.addToken(source, index, this.token(source, index)!, 'word', region, word);
            continue;
          }
          index += text[index] === '\\' ? 2 : 1;
        }
        if (index >= text.length) this.open(source, from, "$'");
        return Math.min(index + 1, text.length);
      });
    }
    if (next === '"' && !inDoubleQuotes) {
      return this.region(source, from, ctx, 'special-quotes', (region) =>
        this.doubleQuoted(source, from + 2, region, word),
      );
    }
    word.text += '$';
    return from + 1;
  }

  /** `${…}` from after its `${`, counting braces; returns the offset after its `}`. */
  private parameter(source: Source, from: number, ctx: Context, inDoubleQuotes: boolean): number {
    const text = source.text;
    const word: Accumulator = { text: '', expands: true };
    let depth = 1;
    let index = from;
    while (index < text.length) {
      const char = text[index]!;
      const token = this.token(source, index);
      if (token) {
        index = this.addToken(source, index, token, 'quoted', ctx, word);
        continue;
      }
      if (char === '}') {
        depth--;
        index++;
        if (depth === 0) return index;
        continue;
      }
      if (char === '{') depth++;
      if (char === '\\') {
        index += 2;
        continue;
      }
      if (char === "'" && !inDoubleQuotes) {
        index = this.singleQuoted(source, index, ctx, word);
        continue;
      }
      if (char === '"') {
        index = this.doubleQuoted(source, index + 1, ctx, word);
        continue;
      }
      if (char === '$' || char === '`') {
        index = this.expansion(source, index, ctx, word, inDoubleQuotes);
        continue;
      }
      index++;
    }
    this.open(source, from - 2, '${');
    return text.length;
  }

  /** `$((…))` or `((…))` from after its `((`; returns the offset after its `))`. */
  private arithmetic(source: Source, from: number, ctx: Context): number {
    const text = source.text;
    const word: Accumulator = { text: '', expands: true };
    let depth = 0;
    let index = from;
    while (index < text.length) {
      const char = text[index]!;
      const token = this.token(source, index);
      if (token) {
        index = this.addToken(source, index, token, 'word', ctx, word);
        continue;
      }
      if (char === '(') depth++;
      if (char === ')') {
        if (depth === 0 && text[index + 1] === ')') return index + 2;
        depth = Math.max(0, depth - 1);
      }
      if (char === '\\') {
        index += 2;
        continue;
      }
      if (char === '"') {
        index = this.doubleQuoted(source, index + 1, ctx, word);
        continue;
      }
      if (char === "'") {
        index = this.singleQuoted(source, index, ctx, word);
        continue;
      }
      if (char === '$' || char === '`') {
        index = this.expansion(source, index, ctx, word, false);
        continue;
      }
      index++;
    }
    this.open(source, from - 2, '((');
    return text.length;
  }

  /**
   * `` `…` ``: the text up to the closing backquote, with `\$`, `` \` ``, `\\` (and
   * `\"` inside double quotes) unescaped, is read again as commands.
   */
  private backquoted(source: Source, from: number, ctx: Context, inDoubleQuotes: boolean): number {
    const text = source.text;
    let inner = '';
    const origin: number[] = [];
    let index = from + 1;
    while (index < text.length && text[index] !== '`') {
      const next = text[index + 1];
      const escaped =
        text[index] === '\\' &&
        next !== undefined &&
        (next === '$' || next === '`' || next === '\\' || (inDoubleQuotes && next === '"'));
      if (escaped) index++;
      inner += text[index];
      origin.push(this.at(source, index));
      index++;
    }
    if (index >= text.length) {
      this.open(source, from, '`');
      return text.length;
    }
    origin.push(this.at(source, index));
    const nested = { backquotes: [...ctx.backquotes, inDoubleQuotes], collect: ctx.collect };
    this.commands({ text: inner, origin }, 0, nested, false);
    return index + 1;
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

  /** Text where nothing expands (a comment, single quotes): placeholders are collected, escapes kept. */
  private plainText(
    source: Source,
    from: number,
    to: number,
    ctx: Context,
    word: Accumulator = { text: '', expands: false },
  ): number {
    let index = from;
    while (index < to) {
      const token = this.token(source, index);
      if (token && index + token[0].length <= to) {
        index = this.addToken(source, index, token, 'word', ctx, word);
        continue;
      }
      word.text += source.text[index];
      index++;
    }
    return to;
  }

  /**
   * Runs `scan` for a construct starting at `from` whose placeholders are all
   * refused for `kind` (unless something inside refused them already).
   */
  private region(
    source: Source,
    from: number,
    ctx: Context,
    kind: RefusalKind,
    scan: (region: Context) => number,
  ): number {
    const found: TemplateSlot[] = [];
    const end = scan({ backquotes: ctx.backquotes, collect: (slot) => found.push(slot) });
    refuse(found, { kind, start: this.at(source, from), end: this.end(source, end) });
    for (const slot of found) ctx.collect(slot);
    return end;
  }

  private token(source: Source, index: number): RegExpExecArray | null {
    if (source.text[index] !== '{') return null;
    this.tokens.lastIndex = index;
    return this.tokens.exec(source.text);
  }

  /** Records the token at `index`; returns the offset after it. */
  private addToken(
    source: Source,
    index: number,
    token: RegExpExecArray,
    form: SlotForm,
    ctx: Context,
    word: Accumulator,
  ): number {
    const end = index + token[0].length;
    if (token[1] !== undefined) {
      this.addSlot(source, 'escape', token[1], index, end, form, ctx);
      word.text += `{${token[1]}}`;
    } else {
      this.addSlot(source, 'placeholder', token[2]!, index, end, form, ctx);
      word.expands = true;
    }
    return end;
  }

  private addSlot(
    source: Source,
    kind: TemplateSlot['kind'],
    name: string,
    start: number,
    end: number,
    form: SlotForm,
    ctx: Context,
  ): void {
    const slot: TemplateSlot = {
      kind,
      name,
      start: this.at(source, start),
      end: this.end(source, end),
      form,
      backquotes: ctx.backquotes,
    };
    this.slots.push(slot);
    if (kind === 'placeholder') ctx.collect(slot);
  }

  private open(source: Source, index: number, what: string): void {
    this.unclosed ??= { what, at: this.at(source, Math.max(0, index)) };
  }

  /** The template offset of `source`'s character at `index`. */
  private at(source: Source, index: number): number {
    if (source.origin === undefined) return index;
    return source.origin[Math.min(index, source.origin.length - 1)] ?? 0;
  }

  /** The template offset just after `source`'s characters before `end`. */
  private end(source: Source, end: number): number {
    return end === 0 ? this.at(source, 0) : this.at(source, end - 1) + 1;
  }
}

function refuse(slots: readonly TemplateSlot[], refusal: Refusal): void {
  for (const slot of slots) slot.refusal ??= refusal;
}
