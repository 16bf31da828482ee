/** What a `LineSplitter` does with a line longer than its limit. */
export interface LineSplitterOptions {
  /** Most UTF-8 bytes of one line, its line break excluded. */
  maxLineBytes: number;
  /**
   * `cut`: the line is delivered cut to its first `maxLineBytes` characters,
   * with `cut` set, and the rest of it is dropped as it arrives. `stop`:
   * `onTooLong` is called once and all later input is ignored.
   */
  overLimit: 'cut' | 'stop';
  /** Called for a line past the limit under `stop`: its 1-based number and its bytes so far. */
  onTooLong?: (lineNumber: number, bytes: number) => void;
}

/**
 * Splits text arriving in chunks into lines, as `readline` does (`\n`,
 * `\r\n` or `\r` ends a line; a last line without one is delivered by `end`),
 * but never holds more than about `maxLineBytes` of a line in memory: a
 * program that writes one endless line cannot exhaust it.
 */
export class LineSplitter {
  private readonly onLine: (line: string, cut: boolean) => void;
  private readonly options: LineSplitterOptions;
  /** The start of the current line, from earlier chunks. */
  private parts: string[] = [];
  /** UTF-8 bytes of `parts`. */
  private partBytes = 0;
  private lineNumber = 0;
  private cutting = false;
  private stopped = false;
  /** The last chunk ended with `\r`: a `\n` starting the next one belongs to that break. */
  private afterCarriageReturn = false;

  constructor(onLine: (line: string, cut: boolean) => void, options: LineSplitterOptions) {
    this.onLine = onLine;
    this.options = options;
  }

  /** Feeds the next chunk of text; complete lines are delivered before it returns. */
  push(chunk: string): void {
    if (this.stopped) return;
    let start = this.afterCarriageReturn && chunk.charCodeAt(0) === 10 ? 1 : 0;
    this.afterCarriageReturn = false;
    // The next \n and the next \r, each searched for again only once passed: no regular
    // expression (a match object per line), and output without \r searches for it once.
    let lineFeed = chunk.indexOf('\n', start);
    let carriageReturn = chunk.indexOf('\r', start);
    while (start < chunk.length) {
      if (lineFeed !== -1 && lineFeed < start) lineFeed = chunk.indexOf('\n', start);
      if (carriageReturn !== -1 && carriageReturn < start) {
        carriageReturn = chunk.indexOf('\r', start);
      }
      const end =
        lineFeed === -1 || (carriageReturn !== -1 && carriageReturn < lineFeed)
          ? carriageReturn
          : lineFeed;
      if (end === -1) {
        this.keep(chunk, start, chunk.length);
        return;
      }
      if (!this.finishLine(chunk, start, end)) return;
      start = end + 1;
      if (chunk.charCodeAt(end) === 13) {
        if (start === chunk.length) this.afterCarriageReturn = true;
        else if (chunk.charCodeAt(start) === 10) start++;
      }
    }
  }

  /** Delivers the last line when the input did not end with a line break. */
  end(): void {
    if (this.stopped || (this.parts.length === 0 && !this.cutting)) return;
    this.finishLine('', 0, 0);
  }

  /** Holds `chunk[from, to)`, the start of a line still arriving, unless that passes the limit. */
  private keep(chunk: string, from: number, to: number): void {
    if (from === to || this.cutting) return;
    const part = chunk.slice(from, to);
    this.parts.push(part);
    this.partBytes += Buffer.byteLength(part, 'utf8');
    if (this.partBytes > this.options.maxLineBytes) this.overLimit(this.partBytes);
  }

  /** Delivers the line ending at `chunk[end]`; false when the splitter stopped. */
  private finishLine(chunk: string, from: number, end: number): boolean {
    if (this.cutting) {
      this.deliver(this.parts.join(''), true);
      return true;
    }
    const rest = chunk.slice(from, end);
    // A UTF-16 unit is at most 3 UTF-8 bytes: most lines need no count.
    const restBytes =
      this.partBytes + rest.length * 3 <= this.options.maxLineBytes
        ? 0
        : Buffer.byteLength(rest, 'utf8');
    const line = this.parts.length === 0 ? rest : this.parts.join('') + rest;
    if (this.partBytes + restBytes > this.options.maxLineBytes) {
      this.parts = [line];
      this.overLimit(this.partBytes + restBytes);
      if (this.stopped) return false;
      this.deliver(this.parts.join(''), true);
      return true;
    }
    this.deliver(line, false);
    return true;
  }

  private deliver(line: string, cut: boolean): void {
    this.lineNumber++;
    this.parts = [];
    this.partBytes = 0;
    this.cutting = false;
    this.onLine(line, cut);
  }

  private overLimit(bytes: number): void {
    if (this.options.overLimit === 'stop') {
      this.stopped = true;
      this.parts = [];
      this.partBytes = 0;
      this.options.onTooLong?.(this.lineNumber + 1, bytes);
      return;
    }
    this.parts = [this.parts.join('').slice(0, this.options.maxLineBytes)];
    this.cutting = true;
  }
}
