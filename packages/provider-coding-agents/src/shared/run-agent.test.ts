import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEventReader, AgentOutcome } from './agent-adapter.js';
import { runAgent } from './run-agent.js';

// A stand-in agent CLI: a node script that writes what its argv says, as a real agent would.
const AGENT = `
const [mode] = process.argv.slice(2);
const say = (value) => process.stdout.write(JSON.stringify(value) + '\\n');
if (mode === 'events') {
  let input = '';
  process.stdin.on('data', (chunk) => (input += chunk));
  process.stdin.on('end', () => {
    say({ type: 'prompt', text: input });
    process.stdout.write('Warning: not JSON at all\\n');
    process.stdout.write(JSON.stringify({ type: 'split' }).slice(0, 5));
    setTimeout(() => {
      process.stdout.write(JSON.stringify({ type: 'split' }).slice(5) + '\\n');
      say({ type: 'secret', key: process.env.KEY });
      process.stderr.write('done\\n');
    }, 50);
  });
} else if (mode === 'hang') {
  const { spawn } = require('node:child_process');
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  require('node:fs').writeFileSync(process.argv[3], String(child.pid));
  say({ type: 'started' });
  setInterval(() => {}, 1000);
} else if (mode === 'flood') {
  const line = JSON.stringify({ type: 'x', pad: 'y'.repeat(1000) }) + '\\n';
  for (let i = 0; i < 200; i++) process.stdout.write(line);
  setInterval(() => {}, 1000);
}
`;

let dir: string;
let script: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agentv-run-agent-'));
  script = path.join(dir, 'agent.cjs');
  await writeFile(script, AGENT);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function recorder(): AgentEventReader & { events: unknown[] } {
  const events: unknown[] = [];
  return {
    events,
    push: (event) => events.push(event),
    finish: (): AgentOutcome => ({ trace: [], answer: 'ok' }),
  };
}

const run = (
  args: string[],
  options: { stdin?: string; timeoutMs?: number; max?: number } = {},
) => {
  const reader = recorder();
  return runAgent({
    executable: process.execPath,
    invocation: {
      args: [script, ...args],
      env: {},
      ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    },
    env: { PATH: process.env.PATH ?? '', KEY: 'sk-very-secret' },
    cwd: dir,
    reader,
    displayName: 'Stand-in',
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    maxOutputBytes: options.max ?? 1024 * 1024,
    mask: (text) => text.replaceAll('sk-very-secret', '***'),
  }).then((result) => ({ result, events: reader.events }));
};

/** Whether `pid` runs (a zombie waiting for its parent to reap it runs no more). */
const alive = async (pid: number) => {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && !/^\d+ \(.*\) Z/.test(stat);
};

describe('runAgent', () => {
  it('passes the prompt on stdin, reads JSON lines across chunks and keeps a masked transcript', async () => {
    const { result, events } = await run(['events'], { stdin: 'Fix the "bug"; $(rm -rf /)' });
    expect(events).toEqual([
      { type: 'prompt', text: 'Fix the "bug"; $(rm -rf /)' },
      { type: 'split' },
      { type: 'secret', key: 'sk-very-secret' },
    ]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('done\n');
    expect(result.transcript).toContain('Warning: not JSON at all');
    expect(result.transcript).toContain('{"type":"secret","key":"***"}');
    expect(result.transcript).not.toContain('sk-very-secret');
    // A line that is not JSON is a trace error naming the agent, not a parse error.
    expect(result.outcome.trace).toEqual([
      {
        type: 'error',
        timestamp: expect.any(String),
        text: "line 2 of Stand-in's output is not JSON: Warning: not JSON at all",
      },
    ]);
  });

  it('stops the whole process group at the time limit', async () => {
    const pidFile = path.join(dir, 'grandchild.pid');
    // The limit covers Node's start, the grandchild's and the pid file: room for a busy machine.
    const { result, events } = await run(['hang', pidFile], { timeoutMs: 8000 });
    expect(result.timedOut).toBe(true);
    expect(events).toEqual([{ type: 'started' }]);
    const grandchild = Number(await readFile(pidFile, 'utf8'));
    expect(await alive(grandchild)).toBe(false);
  });

  it('stops an agent that writes more than max_output_bytes', async () => {
    const { result } = await run(['flood'], { max: 50_000 });
    expect(result.outputExceeded).toBeGreaterThan(50_000);
    expect(result.timedOut).toBe(false);
  });

  it('rejects with the spawn error when the program cannot start', async () => {
    await expect(
      runAgent({
        executable: path.join(dir, 'missing'),
        invocation: { args: [], env: {} },
        env: {},
        cwd: dir,
        reader: recorder(),
        displayName: 'Stand-in',
        maxOutputBytes: 1000,
        mask: (text) => text,
      }),
    ).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
