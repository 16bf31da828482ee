import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { Issue } from '../errors/input-issue.js';
import { jsonParseProblem } from '../util/json-parse-problem.js';
import { isRecord } from '../util/records.js';
import { readCsvRows, UnterminatedQuoteError } from './read-csv-rows.js';

/** The dataset formats `cases:` accepts, by file extension. */
export const DATASET_EXTENSIONS: Record<string, 'jsonl' | 'csv'> = {
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
  '.csv': 'csv',
};

/** One record of a dataset, shaped like a YAML case, or the problem that line has. */
export type DatasetRecord =
  | { line: number; record: Record<string, unknown>; issue?: undefined }
  | { line: number; record?: undefined; issue: Issue };

/** CSV columns with a meaning of their own (lower case); every other column goes to `vars`. */
const CSV_COLUMNS: Record<string, 'id' | 'question' | 'outcome' | 'answer' | 'conversation'> = {
  id: 'id',
  question: 'question',
  input: 'question',
  expected_outcome: 'outcome',
  expected: 'outcome',
  outcome: 'outcome',
  reference_answer: 'answer',
  answer: 'answer',
  conversation_id: 'conversation',
};

/**
 * Streams the records of a JSONL or CSV dataset (`format`), a few at a time (those of
 * one chunk read from the file): memory holds one chunk, not the file. A record without an `id` gets
 * `line-<n>` (the line it starts on); a JSONL record's `question` (or `input`)
 * text becomes one user message, as a CSV question column does. Problems (invalid JSON, a line that is
 * not an object, a CSV row with the wrong number of fields, a CSV header
 * without a question column) come back as error issues at `file:line`.
 */
export async function* readDataset(
  filePath: string,
  file: string,
  format: 'jsonl' | 'csv',
): AsyncGenerator<DatasetRecord[]> {
  const input = createReadStream(filePath, { encoding: 'utf8' });
  try {
    if (format === 'jsonl') {
      // Records by the chunk: an await per line cost more than parsing it.
      let line = 0;
      for await (const lines of splitLines(input)) {
        const records: DatasetRecord[] = [];
        for (let index = 0; index < lines.length; index++) {
          line++;
          const record = jsonlRecord(lines[index]!, line, file);
          if (record !== undefined) records.push(record);
        }
        if (records.length > 0) yield records;
      }
    } else {
      for await (const record of readCsv(input, file)) yield [record];
    }
  } finally {
    input.destroy();
  }
}

/** The record (or the problem) of JSONL line number `line`; undefined for a blank line. */
function jsonlRecord(text: string, line: number, file: string): DatasetRecord | undefined {
  if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const problem = jsonParseProblem(error, text);
    return lineIssue(
      file,
      line,
      `invalid JSON: ${problem.message}`,
      'write one case per line as a JSON object, e.g. {"id": "c1", "question": "..."} or {"id": "c1", "input_messages": [{"role": "user", "content": "..."}]}',
      problem.column,
    );
  }
  if (!isRecord(value)) {
    return lineIssue(
      file,
      line,
      'a dataset line must be a JSON object (one case)',
      'write one case per line as a JSON object, e.g. {"id": "c1", "input_messages": [...]}',
    );
  }
  const problem = questionProblem(value);
  if (problem !== undefined) return lineIssue(file, line, problem.message, problem.hint);
  if (value.id === undefined) value.id = `line-${line}`;
  return { line, record: value };
}

/** The question keys a dataset record may use instead of `input_messages` (as CSV columns do). */
/** The keys a dataset line may give its question by (`question`, `input`), besides `input_messages`. */
export const QUESTION_KEYS = Object.keys(CSV_COLUMNS).filter(
  (key) => CSV_COLUMNS[key] === 'question',
);

/**
 * Turns a JSONL record's `question` (or `input`), a string, into `input_messages`,
 * as a CSV row's question column is; the problem when it cannot.
 */
function questionProblem(
  record: Record<string, unknown>,
): { message: string; hint: string } | undefined {
  // Most records write `input_messages`: nothing is allocated for them.
  let given: string[] | undefined;
  for (let index = 0; index < QUESTION_KEYS.length; index++) {
    const key = QUESTION_KEYS[index]!;
    if (record[key] === undefined) continue;
    given ??= [];
    given.push(key);
  }
  if (given === undefined) return undefined;
  if (record.input_messages !== undefined) given.push('input_messages');
  if (given.length > 1) {
    return {
      message: `the case gives what the agent is asked more than once: ${given.map((key) => `"${key}"`).join(' and ')}`,
      hint: 'keep one of them: `question` (text, one user message) or `input_messages`',
    };
  }
  const key = given[0]!;
  const question = record[key];
  if (typeof question !== 'string' || question.trim() === '') {
    return {
      message: `"${key}" must be non-empty text`,
      hint: `write what the agent is asked as a string, e.g. "${key}": "What is the capital of France?"`,
    };
  }
  delete record[key];
  record.input_messages = questionMessages(question);
  return undefined;
}

/** A question as a case's messages: one user message (CSV rows and JSONL records alike). */
function questionMessages(question: string): { role: 'user'; content: string }[] {
  return [{ role: 'user', content: question }];
}

/**
 * The lines of a UTF-8 stream, as `readline` splits them (`\n`, `\r\n` or a lone `\r`
 * ends a line; a last line without one is kept), read chunk by chunk: the lines each
 * chunk completes, together.
 */
async function* splitLines(input: NodeJS.ReadableStream): AsyncGenerator<string[]> {
  // The start of a line the last chunk did not end: joined to that line alone, so a chunk
  // is searched as it came, not copied into one string with it.
  let rest = '';
  // The last chunk ended in \r: a \n starting this one belongs to it (\r\n ends one line).
  let afterCarriage = false;
  for await (const chunk of input) {
    const text = chunk as string;
    const lines: string[] = [];
    let start = afterCarriage && text.charCodeAt(0) === 10 ? 1 : 0;
    afterCarriage = false;
    // The next \r, searched again only once passed (most files have none: one search).
    let carriage = text.indexOf('\r', start);
    for (;;) {
      let stop = text.indexOf('\n', start);
      if (stop === -1) stop = text.length;
      if (carriage !== -1 && carriage < start) carriage = text.indexOf('\r', start);
      // A lone \r ends a line too; \r\n ends it once.
      const end = carriage !== -1 && carriage < stop ? carriage : stop;
      if (end === text.length) break;
      const line = text.slice(start, end);
      lines.push(rest === '' ? line : rest + line);
      rest = '';
      if (end !== carriage) {
        start = stop + 1;
      } else if (carriage + 1 === text.length) {
        afterCarriage = true;
        start = text.length;
      } else {
        start = text.charCodeAt(carriage + 1) === 10 ? carriage + 2 : carriage + 1;
      }
    }
    if (start < text.length) rest += text.slice(start);
    if (lines.length > 0) yield lines;
  }
  if (rest !== '') yield [rest];
}

async function* readCsv(input: NodeJS.ReadableStream, file: string): AsyncGenerator<DatasetRecord> {
  let header: { roles: (string | undefined)[]; names: string[] } | undefined;
  try {
    for await (const row of readCsvRows(input as never)) {
      if (header === undefined) {
        const checked = csvHeader(row.fields, row.line, file);
        if ('issue' in checked) {
          yield checked;
          return;
        }
        header = checked;
        continue;
      }
      if (row.fields.length !== header.names.length) {
        yield lineIssue(
          file,
          row.line,
          `the row has ${row.fields.length} field${row.fields.length === 1 ? '' : 's'}, the header has ${header.names.length}`,
          'quote fields that contain commas, quotes or line breaks ("a, b"; "say ""hi""")',
        );
        continue;
      }
      if (row.fields[header.roles.indexOf('question')]!.trim() === '') {
        yield lineIssue(
          file,
          row.line,
          'the question is empty',
          'write what the agent is asked in the question column, or remove the row',
        );
        continue;
      }
      yield { line: row.line, record: csvRecord(row.fields, header, row.line) };
    }
  } catch (error) {
    if (!(error instanceof UnterminatedQuoteError)) throw error;
    yield lineIssue(
      file,
      error.line,
      'a quoted field starting in this row is never closed',
      'close the quote; a quote inside a quoted field is written twice ("")',
    );
  }
  if (header === undefined) {
    yield lineIssue(
      file,
      1,
      'the CSV dataset is empty',
      'start with a header row, e.g. id,question,expected_outcome',
    );
  }
}

function csvHeader(
  fields: readonly string[],
  line: number,
  file: string,
): { roles: (string | undefined)[]; names: string[] } | { line: number; issue: Issue } {
  const names = fields.map((name) => name.trim());
  const roles = names.map((name) => CSV_COLUMNS[name.toLowerCase()]);
  const fail = (message: string, hint: string) => lineIssue(file, line, message, hint);
  const seen = new Map<string, string>();
  for (const [index, name] of names.entries()) {
    const key = roles[index] ?? `vars.${name}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      return fail(
        `columns "${earlier}" and "${name}" both give the case's ${roles[index] ?? name}`,
        'keep one of them',
      );
    }
    seen.set(key, name);
  }
  if (!roles.includes('question')) {
    return fail(
      'the header has no "question" column',
      'name the column holding what the agent is asked `question` (or `input`), e.g. id,question,expected_outcome',
    );
  }
  return { roles, names };
}

/** A CSV row as a YAML-shaped case: `question` is one user message, `answer` one assistant message. */
function csvRecord(
  fields: readonly string[],
  header: { roles: (string | undefined)[]; names: string[] },
  line: number,
): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  let vars: Record<string, string> | undefined;
  for (const [index, value] of fields.entries()) {
    const role = header.roles[index];
    if (role === undefined) {
      vars ??= {};
      vars[header.names[index]!] = value;
    } else if (role === 'question') {
      record.input_messages = questionMessages(value);
    } else if (value !== '') {
      if (role === 'id') record.id = value;
      else if (role === 'outcome') record.expected_outcome = value;
      else if (role === 'conversation') record.conversation_id = value;
      else record.expected_messages = [{ role: 'assistant', content: value }];
    }
  }
  record.id ??= `line-${line}`;
  if (vars !== undefined) record.vars = vars;
  return record;
}

/** A dataset line that is an error, located at its start (`file:line:1`, as its records' issues are) or at `column`. */
function lineIssue(
  file: string,
  line: number,
  message: string,
  hint: string,
  column = 1,
): { line: number; issue: Issue } {
  return { line, issue: { severity: 'error', file, line, column, message, hint } };
}

/** The format of a dataset path, from its extension; undefined when not supported. */
export function datasetFormat(file: string): 'jsonl' | 'csv' | undefined {
  return DATASET_EXTENSIONS[path.extname(file).toLowerCase()];
}
