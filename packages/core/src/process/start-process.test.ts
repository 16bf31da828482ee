import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { groupHasLiveMembers } from './process-group.js';
import { startProcess } from './start-process.js';

/** Reads the next line the process writes to `stream`. */
async function nextLine(stream: NodeJS.ReadableStream): Promise<string> {
  let buffered = '';
  while (!buffered.includes('\n')) {
    const [chunk] = await once(stream, 'data');
    buffered += String(chunk);
  }
  return buffered.slice(0, buffered.indexOf('\n'));
}

// Echoes each stdin line upper-cased with a variable of its environment; on EOF prints `bye`.
const ECHO = [
  "const rl = require('node:readline').createInterface({ input: process.stdin });",
  "rl.on('line', (line) => console.log(line.toUpperCase() + ' ' + process.env.GREETING));",
  "rl.on('close', () => console.error('bye'));",
].join('');

describe('startProcess', () => {
  it('talks over stdin and stdout with the given environment, and ends on EOF', async () => {
    const child = await startProcess({
      command: [process.execPath, '-e', ECHO],
      cwd: tmpdir(),
      env: { GREETING: 'hello' },
    });
    child.stdin.write('one\n');
    expect(await nextLine(child.stdout)).toBe('ONE hello');
    child.stdin.write('two\n');
    expect(await nextLine(child.stdout)).toBe('TWO hello');
    const bye = nextLine(child.stderr);
    expect(await child.stop()).toEqual({ exitCode: 0 });
    expect(await bye).toBe('bye');
    expect(child.exited).toBe(true);
  });

  it('kills the whole process group, children included', async () => {
    const child = await startProcess({
      command: 'sleep 30 & sleep 30; echo never',
      cwd: tmpdir(),
      env: {},
      killGraceMs: 200,
    });
    expect(groupHasLiveMembers(child.pid)).toBe(true);
    const exit = await child.kill();
    expect(exit.signalName).toBe('SIGTERM');
    expect(groupHasLiveMembers(child.pid)).toBe(false);
  });

  it('sends SIGTERM, then SIGKILL, to a process that ignores EOF and SIGTERM', async () => {
    const child = await startProcess({
      command: [
        process.execPath,
        '-e',
        "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); console.log('ready')",
      ],
      cwd: tmpdir(),
      env: {},
      killGraceMs: 200,
    });
    await nextLine(child.stdout);
    expect(await child.stop()).toEqual({ signalName: 'SIGKILL' });
    expect(groupHasLiveMembers(child.pid)).toBe(false);
  });

  it('stops what the process left running in its group when it exits by itself', async () => {
    const child = await startProcess({
      command: 'sleep 30 & echo started',
      cwd: tmpdir(),
      env: {},
      killGraceMs: 200,
    });
    expect(await child.done).toEqual({ exitCode: 0 });
    expect(groupHasLiveMembers(child.pid)).toBe(false);
  });

  it('rejects with the spawn error when it cannot start', async () => {
    await expect(
      startProcess({ command: 'true', cwd: join(tmpdir(), 'no-such-dir-agentv'), env: {} }),
    ).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
