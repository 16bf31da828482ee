import type { Refusal, RefusalKind } from './template-refusal.js';
import type { Accumulator, Context, SlotForm, Source, TemplateSlot } from './template-slot.js';

/**
 * The part of the template scanner that reads quotes and expansions inside a
 * word — `'…'`, `"…"`, `$(…)`, `${…}`, `$((…))`, backquotes, `$'…'` — and
 * records the placeholders found in them. `commands` (the word and command
 * level, in `scan-command-template.ts`) reads what `$(…)` and backquotes hold.
 */
export abstract class ExpansionScanner {
  readonly slots: TemplateSlot[] = [];
  unclosed: { what: string; at: number } | undefined;

  constructor(private readonly tokens: RegExp) {}

  /**
   * Reads commands from `from` until the end of `source`, or (`closed`) until the
   * `)` that ends a `$(…)`; returns the offset after it.
   */
  abstract commands(
    source: Source,
    from: number,
    ctx: Context,
    closed: boolean,
    inArguments?: boolean,
  ): number;

  /** `'…'`: exactly one placeholder becomes a `single` slot; any other placeholder is refused. */
  protected singleQuoted(source: Source, from: number, ctx: Context, word: Accumulator): number {
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
  protected doubleQuoted(source: Source, from: number, ctx: Context, word: Accumulator): number {
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
  protected expansion(
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
  protected parameter(source: Source, from: number, ctx: Context, inDoubleQuotes: boolean): number {
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
  protected arithmetic(source: Source, from: number, ctx: Context): number {
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
  protected backquoted(
    source: Source,
    from: number,
    ctx: Context,
    inDoubleQuotes: boolean,
  ): number {
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

  /** Text where nothing expands (a comment, single quotes): placeholders are collected, escapes kept. */
  protected plainText(
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
  protected region(
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

  protected token(source: Source, index: number): RegExpExecArray | null {
    if (source.text[index] !== '{') return null;
    this.tokens.lastIndex = index;
    return this.tokens.exec(source.text);
  }

  /** Records the token at `index`; returns the offset after it. */
  protected addToken(
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

  protected addSlot(
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

  protected open(source: Source, index: number, what: string): void {
    this.unclosed ??= { what, at: this.at(source, Math.max(0, index)) };
  }

  /** The template offset of `source`'s character at `index`. */
  protected at(source: Source, index: number): number {
    if (source.origin === undefined) return index;
    return source.origin[Math.min(index, source.origin.length - 1)] ?? 0;
  }

  /** The template offset just after `source`'s characters before `end`. */
  protected end(source: Source, end: number): number {
    return end === 0 ? this.at(source, 0) : this.at(source, end - 1) + 1;
  }
}

/** Sets `refusal` on the slots that have none yet (an inner construct's reason wins). */
export function refuse(slots: readonly TemplateSlot[], refusal: Refusal): void {
  for (const slot of slots) slot.refusal ??= refusal;
}
