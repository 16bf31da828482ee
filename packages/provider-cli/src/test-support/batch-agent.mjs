#!/usr/bin/env node
// A batch runner for tests: `batch-agent.mjs MODE INPUT_FILE OUTPUT_FILE`.
// Reads the JSONL request bundle, appends one line per run to $BATCH_LOG (if
// set), and writes JSONL answers shaped by MODE.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';

const [mode, inputFile, outputFile] = process.argv.slice(2);
if (process.env.BATCH_LOG) appendFileSync(process.env.BATCH_LOG, `${process.pid}\n`);
const requests = readFileSync(inputFile, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line));
const now = '2026-01-01T00:00:00.000Z';

const answer = (request) => ({ id: request.id, text: `answer to ${request.question}` });
const lines = requests.map((request) => JSON.stringify(answer(request)));

switch (mode) {
  case 'ok':
    break;
  case 'echo-bundle':
    lines.splice(
      0,
      lines.length,
      ...requests.map((request) =>
        JSON.stringify({ id: request.id, text: JSON.stringify(request) }),
      ),
    );
    break;
  case 'traces':
    lines.splice(
      0,
      lines.length,
      ...requests.map((request, index) =>
        JSON.stringify({
          id: request.id,
          text: index % 2 === 0 ? `answer ${index}` : { structured: index },
          trace: [
            { type: 'tool_call', timestamp: now, name: 'search', input: { q: request.question } },
            { type: 'not-a-type', timestamp: now },
            { type: 'tool_result', name: 'missing-timestamp' },
            'garbage',
            { type: 'tool_result', timestamp: now, name: 'search', output: 'found' },
          ],
          output_messages: [
            {
              role: 'assistant',
              content: 'calling tools',
              tool_calls: [
                { tool: 'first', input: { n: 1 }, output: 'one' },
                { tool: 'second', input: { n: 2 } },
              ],
            },
          ],
          extra_field: 'ignored',
        }),
      ),
    );
    break;
  case 'blank-lines':
    lines.splice(1, 0, '', '   ');
    break;
  case 'reversed':
    lines.reverse();
    break;
  case 'extra-ids':
    lines.push(JSON.stringify({ id: 'not-requested', text: 'stray' }));
    break;
  case 'missing':
    lines.splice(0, 2);
    break;
  case 'bad-line-7':
    lines[6] = '{"id": "case-6", "text": "unterminated';
    break;
  case 'not-object':
    lines[1] = '["an", "array"]';
    break;
  case 'no-id':
    lines[2] = JSON.stringify({ text: 'who am I' });
    break;
  case 'no-text':
    lines[2] = JSON.stringify({ id: requests[2].id });
    break;
  case 'duplicate':
    lines.push(lines[0]);
    break;
  case 'no-output':
    process.exit(0);
    break;
  case 'exit-3':
    console.error('batch runner: model quota exhausted');
    process.exit(3);
    break;
  case 'sleep':
    setTimeout(() => {}, 60_000);
    break;
  default:
    throw new Error(`unknown mode ${mode}`);
}
if (mode !== 'sleep') writeFileSync(outputFile, `${lines.join('\n')}\n`);
