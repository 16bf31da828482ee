#!/usr/bin/env node
// An offline "agent" that knows a few capitals. With --prompt it answers one
// question; with --input it answers a batch (JSONL requests, one answer per line).
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { prompt: { type: 'string' }, input: { type: 'string' }, out: { type: 'string' } },
});

const capitals = {
  france: 'Paris',
  japan: 'Tokyo',
  kenya: 'Nairobi',
  peru: 'Lima',
  canada: 'Ottawa',
};

function answer(question) {
  const country = Object.keys(capitals).find((name) => question.toLowerCase().includes(name));
  return country ? `The capital is ${capitals[country]}.` : 'I do not know.';
}

if (values.input !== undefined) {
  const requests = readFileSync(values.input, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const lines = requests.map((request) =>
    JSON.stringify({ id: request.id, text: answer(request.question) }),
  );
  writeFileSync(values.out, `${lines.join('\n')}\n`);
} else {
  writeFileSync(values.out, JSON.stringify({ text: answer(values.prompt ?? '') }));
}
