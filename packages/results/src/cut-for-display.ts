import { formatBytes, type TraceEvent } from '@agentv/core/provider-utils';

/** Most characters of an answer, reasoning, miss or error a report shows. */
export const REPORT_TEXT_CHARS = 65_536;

/** Most characters of one trace payload (`input`, `output`, `text`, `metadata`) a report shows. */
export const REPORT_TRACE_CHARS = 16_384;

/**
 * `text` as a report shows it: whole up to `maxChars` characters, else its
 * start and a marker saying how much was cut and, when given, where the whole
 * text is (`… [cut: 15.2 MiB more; the full answer is in the result file]`).
 * Never cuts between the two halves of a surrogate pair. Reports only: the
 * result file keeps what the graders saw.
 */
export function cutForDisplay(text: string, maxChars: number, wholeIn?: string): string {
  if (text.length <= maxChars) return text;
  let end = maxChars;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  const cutBytes = Buffer.byteLength(text.slice(end), 'utf8');
  return `${text.slice(0, end)}\n… [cut: ${formatBytes(cutBytes)} more${wholeIn ? `; ${wholeIn}` : ''}]`;
}

/** An answer as a report shows it (see `cutForDisplay`). */
export function displayAnswer(answer: string): string {
  return cutForDisplay(answer, REPORT_TEXT_CHARS, 'the full answer is in the result file');
}

/** Reasoning, a miss or an error message as a report shows it (see `cutForDisplay`). */
export function displayText(text: string): string {
  return cutForDisplay(text, REPORT_TEXT_CHARS, 'the full text is in the result file');
}

/**
 * Trace events as a report shows them: a `text`, `input` or `output` longer
 * than `REPORT_TRACE_CHARS` (as JSON when it is not a string) becomes its cut
 * text, a longer `metadata` becomes `{ cut: <its cut JSON> }`. Events with
 * nothing to cut are kept as they are.
 */
export function displayTrace(trace: readonly TraceEvent[]): TraceEvent[] {
  return trace.map((event) => {
    const text = cutPayload(event.text);
    const input = cutPayload(event.input);
    const output = cutPayload(event.output);
    const metadata = cutPayload(event.metadata);
    if (!text && !input && !output && !metadata) return event;
    const shown: TraceEvent = { ...event };
    if (text) shown.text = text;
    if (input) shown.input = input;
    if (output) shown.output = output;
    if (metadata) shown.metadata = { cut: metadata };
    return shown;
  });
}

/** A payload's cut text when it is too long to show whole; undefined when it fits. */
function cutPayload(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined || text.length <= REPORT_TRACE_CHARS) return undefined;
  return cutForDisplay(text, REPORT_TRACE_CHARS);
}
