// A persistent agent for tests: `node persistent-agent.mjs <log file> [ignore-eof] [trap-term]
// [ready-after=<ms>] [exit-at-start]`.
// Logs `start <pid>` and `eof <pid>` lines to the log file; answers each request line by its
// question: `crash` exits on its first attempt (attempts count from 1), `hang` starts a child and never answers, `bad-json` and
// `wrong-id` break the protocol, `leak` prints $TOKEN and answers it under a wrong id, anything else is echoed as `echo: <question>`.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [log, ...flags] = process.argv.slice(2);
appendFileSync(log, `start ${process.pid}\n`);
if (flags.includes('trap-term')) process.on('SIGTERM', () => {});
// `ready-after=<ms>`: prints a status line at once and {"ready": true} after <ms>, as an agent
// that loads a model would; `exit-at-start`: exits with code 4 before that.
const readyAfter = flags.find((flag) => flag.startsWith('ready-after='));
if (flags.includes('exit-at-start')) {
  process.stderr.write('cannot load the model\n');
  process.exit(4);
}
if (readyAfter !== undefined) {
  const token = process.env.TOKEN === undefined ? '' : `,"token":"${process.env.TOKEN}"`;
  process.stdout.write(`{"status":"loading"${token}}\n`);
  setTimeout(() => process.stdout.write('{"ready":true}\n'), Number(readyAfter.slice(12)));
}

const reply = (record) => process.stdout.write(`${JSON.stringify(record)}\n`);
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const request = JSON.parse(line);
  const { id, question, attempt } = request;
  process.stderr.write(`working on ${id}\n`);
  if (question === 'crash' && attempt === 1) {
    process.stderr.write('boom: the agent crashed\n');
    process.exit(3);
  }
  if (question === 'throw') {
    // An uncaught error: Node prints the source line first and the error's own line below it.
    throw new Error('model file missing');
  }
  if (question === 'leak') {
    process.stderr.write(`token=${process.env.TOKEN}\n`);
    return reply({ id: 'leaked', text: process.env.TOKEN });
  }
  if (question === 'hang') {
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    appendFileSync(log, `child ${child.pid}\n`);
    return;
  }
  if (question === 'bad-json') return void process.stdout.write('{"id": "oops" this is not json\n');
  if (question === 'wrong-id') return reply({ id: 'someone-else', text: 'hello' });
  reply({ id, text: `echo: ${question}`, token_usage: { input: 3, output: 2 } });
});
lines.on('close', () => {
  appendFileSync(log, `eof ${process.pid}\n`);
  if (flags.includes('ignore-eof')) setInterval(() => {}, 1000);
});
