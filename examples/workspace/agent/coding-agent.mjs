#!/usr/bin/env node
// A stand-in coding agent: deterministic, offline, no API key. AgentV runs it in the case's
// workspace (its working directory, also $AGENTV_WORKSPACE). It reads TASK.md, which the
// before_each hook wrote, "fixes" the code, writes NOTES.md and answers with what it did.
// It gets two of the three bugs right; for truncate it edits the test instead of the code,
// which the test command does not notice but the diff grader does.
import { readFileSync, writeFileSync } from 'node:fs';

const task = readFileSync('TASK.md', 'utf8');
const edit = (file, from, to) => writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));

let did;
if (task.includes('slugify')) {
  edit('src/slugify.js', "'_'", "'-'");
  did = 'src/slugify.js: join words with "-"';
} else if (task.includes('titleCase')) {
  edit('src/title-case.js', 'word.slice(2)', 'word.slice(1)');
  did = 'src/title-case.js: keep the rest of each word from its second letter';
} else if (task.includes('truncate')) {
  edit('test/truncate.test.js', "'abcd…'", "'abcde…'");
  did = 'test/truncate.test.js: expect what truncate() returns';
} else {
  did = 'nothing: the task is not one this agent knows';
}
writeFileSync('NOTES.md', `# Notes\n\nFixed ${did}.\n`);
process.stdout.write(JSON.stringify({ text: `Changed ${did}.` }));
