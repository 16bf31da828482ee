import type { Readable } from 'node:stream';

/** One CSV record: its fields and the 1-based line it starts on. */
export interface CsvRow {
  line: number;
  fields: string[];
}

/** A CSV field opened with a quote that never closes; `line` is where its record starts. */
export class UnterminatedQuoteError extends Error {
  constructor(readonly line: number) {
    super('a quoted field is never closed');
  }
}

/**
 * Reads RFC 4180 CSV from a text stream, one record at a time, so memory
 * holds one record rather than the file. Quoted fields may hold commas,
 * quotes (`""`) and line breaks; CRLF, LF and lone CR end records; a leading
 * BOM is dropped; blank lines are skipped. A quote inside an unquoted field
 * is kept as text. Throws `UnterminatedQuoteError` at the end of input when
 * a quoted field is still open.
 */
export async function* readCsvRows(input: Readable): AsyncGenerator<CsvRow> {
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  // The previous character was a quote inside a quoted field: either `""` or the closing quote.
  let quoteSeen = false;
  let afterCr = false;
  let atStart = true;
  let line = 1;
  let rowLine = 1;
  let rowStarted = false;

  const endRow = (): CsvRow | undefined => {
    fields.push(field);
    const row = { line: rowLine, fields };
    const blank = fields.length === 1 && field === '' && !rowStarted;
    fields = [];
    field = '';
    rowStarted = false;
    return blank ? undefined : row;
  };

  for await (const chunk of input) {
    let text = String(chunk);
    if (atStart) {
      atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    for (let index = 0; index < text.length; index++) {
      const char = text[index]!;
      if (afterCr) {
        afterCr = false;
        if (char === '\n') {
          // CRLF is one line break; inside quotes the field keeps both characters.
          if (quoted) field += char;
          continue;
        }
      }
      if (quoted) {
        if (quoteSeen) {
          quoteSeen = false;
          if (char === '"') {
            field += '"';
            continue;
          }
          quoted = false; // the quote closed the field; handle this character as unquoted
        } else if (char === '"') {
          quoteSeen = true;
          continue;
        } else {
          if (char === '\n' || char === '\r') {
            line++;
            if (char === '\r') afterCr = true;
          }
          field += char;
          continue;
        }
      }
      if (char === ',') {
        fields.push(field);
        field = '';
        rowStarted = true;
      } else if (char === '\n' || char === '\r') {
        if (char === '\r') afterCr = true;
        const row = endRow();
        line++;
        rowLine = line;
        if (row) yield row;
      } else if (char === '"' && field === '') {
        quoted = true;
        rowStarted = true;
      } else {
        field += char;
      }
    }
  }
  if (quoted && !quoteSeen) throw new UnterminatedQuoteError(rowLine);
  const last = endRow();
  if (last) yield last;
}
