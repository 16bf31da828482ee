import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type CsvRow, readCsvRows, UnterminatedQuoteError } from './read-csv-rows.js';

/** Feeds `chunks` as a stream, so fields, quotes and CRLF pairs split across chunks are covered. */
async function rows(...chunks: string[]): Promise<CsvRow[]> {
  const all: CsvRow[] = [];
  for await (const row of readCsvRows(Readable.from(chunks))) all.push(row);
  return all;
}

describe('readCsvRows', () => {
  it('reads quoted fields holding commas, quotes and line breaks, with their start lines', async () => {
    const text =
      'id,question\n' +
      'a,"Hello, world"\n' +
      'b,"She said ""hi"""\n' +
      'c,"two\nlines"\n' +
      'd,plain\n';
    expect(await rows(text)).toEqual([
      { line: 1, fields: ['id', 'question'] },
      { line: 2, fields: ['a', 'Hello, world'] },
      { line: 3, fields: ['b', 'She said "hi"'] },
      { line: 4, fields: ['c', 'two\nlines'] },
      { line: 6, fields: ['d', 'plain'] },
    ]);
  });

  it('drops a BOM, accepts CRLF, skips blank lines and reads a last line without a newline', async () => {
    expect(await rows('\uFEFFid,q\r\n\r\n1,"x\r\ny"\r\n2,', 'z')).toEqual([
      { line: 1, fields: ['id', 'q'] },
      { line: 3, fields: ['1', 'x\r\ny'] },
      { line: 5, fields: ['2', 'z'] },
    ]);
  });

  it('handles a doubled quote and a CRLF split across chunks, and empty fields', async () => {
    expect(await rows('a,"say "', '"ok""",\r', '\n,b,\n')).toEqual([
      { line: 1, fields: ['a', 'say "ok"', ''] },
      { line: 2, fields: ['', 'b', ''] },
    ]);
  });

  it('reports a quote that never closes at the line its row starts on', async () => {
    const error = await rows('id,q\n1,ok\n2,"open\nstill open\n').catch((caught) => caught);
    expect(error).toBeInstanceOf(UnterminatedQuoteError);
    expect(error.line).toBe(3);
  });
});
