import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cgroupRoot } from './call-cgroup.js';
import { processAlive } from './test-support/process-alive.js';
import { WATCHDOG_SCRIPT } from './watchdog-script.js';

async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const started: ChildProcess[] = [];
const scratch: string[] = [];
afterEach(() => {
  for (const child of started.splice(0)) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A process in a group of its own (like every process AgentV starts); ignores SIGTERM if asked. */
function startGroup(ignoreTerm = false): ChildProcess {
  const child = spawn('/bin/sh', ['-c', `${ignoreTerm ? "trap '' TERM; " : ''}sleep 1000 & wait`], {
    detached: true,
    stdio: 'ignore',
  });
  started.push(child);
  return child;
}

/** The pid of a process that has exited and been reaped. */
async function deadPid(): Promise<number> {
  const child = spawn('/bin/sh', ['-c', 'exit 0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('close', resolve));
  return child.pid!;
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentv-watchdog-test-'));
  scratch.push(dir);
  return dir;
}

/** Starts the watchdog script for `owner`, with `tmp` as its temp directory. */
function startWatchdog(owner: number, tmp: string, cgroups = { parent: '', root: '' }) {
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      WATCHDOG_SCRIPT,
      'agentv-watchdog',
      String(owner),
      tmp,
      '3',
      cgroups.parent,
      cgroups.root,
    ],
    { detached: true, stdio: ['pipe', 'ignore', 'ignore'] },
  );
  started.push(child);
  const exited = new Promise((resolve) => child.on('close', resolve));
  return { child, exited };
}

describe('the watchdog script', () => {
  it('stops the recorded groups and removes the owner’s temp folders when the pipe closes without bye', async () => {
    const owner = startGroup();
    const tmp = tempDir();
    const folder = join(tmp, `agentv-cli-${owner.pid}-Ab12Cd`);
    mkdirSync(folder);
    const polite = startGroup();
    const stubborn = startGroup(true);
    const ended = startGroup();
    const watchdog = startWatchdog(owner.pid!, tmp);
    watchdog.child.stdin!.write(`+${polite.pid}\n+${stubborn.pid}\n+${ended.pid}\n-${ended.pid}\n`);
    // The owner is killed: its end of the pipe closes.
    process.kill(owner.pid!, 'SIGKILL');
    watchdog.child.stdin!.end();
    await watchdog.exited;
    // SIGKILL was sent before the watchdog exited; the kernel ends the process when it next
    // runs it, which on a loaded machine can be a moment later.
    await waitFor(() => !processAlive(polite.pid!), 'the polite group to end');
    // Ignoring SIGTERM only lasts the grace period (0.3 s here).
    await waitFor(() => !processAlive(stubborn.pid!), 'the group ignoring SIGTERM to end');
    // A group the owner said had ended is not signalled (its pid may belong to another by now).
    expect(processAlive(ended.pid!)).toBe(true);
    expect(existsSync(folder)).toBe(false);
  });

  it('stops nothing after bye', async () => {
    const owner = startGroup();
    const tmp = tempDir();
    const folder = join(tmp, `agentv-cli-${owner.pid}-Ab12Cd`);
    mkdirSync(folder);
    const group = startGroup();
    const watchdog = startWatchdog(owner.pid!, tmp);
    watchdog.child.stdin!.end(`+${group.pid}\nbye\n`);
    await watchdog.exited;
    expect(processAlive(group.pid!)).toBe(true);
    expect(existsSync(folder)).toBe(true);
  });

  it('removes temp folders of processes that are gone when it starts, and only those', async () => {
    const tmp = tempDir();
    const live = startGroup();
    const gone = await deadPid();
    const names = [
      `agentv-cli-${gone}-Ab12Cd`,
      `agentv-cli-batch-${gone}-Ab12Cd`,
      `agentv-cli-${live.pid}-Ab12Cd`,
      // Not named by makeTempDir: an older AgentV's folder, another tool's, a test's.
      'agentv-cli-Ab12Cd',
      `agentv-cli-${gone}-toolong`,
      `other-cli-${gone}-Ab12Cd`,
    ];
    for (const name of names) mkdirSync(join(tmp, name));
    const watchdog = startWatchdog(process.pid, tmp);
    watchdog.child.stdin!.end('bye\n');
    await watchdog.exited;
    expect(names.filter((name) => existsSync(join(tmp, name)))).toEqual(names.slice(2));
  });

  const cgroups = cgroupRoot();
  it.runIf(cgroups !== undefined)(
    'kills what runs in the cgroups of a process that is gone and removes them',
    async () => {
      const gone = await deadPid();
      // A parent of the test's own: the watchdog of any AgentV running beside the tests sweeps the
      // shared parent for cgroups of gone processes, and would take this one before it is read.
      const parent = join(cgroups!.parent, `watchdog-test-${process.pid}`);
      mkdirSync(parent, { recursive: true });
      const left = join(parent, `agentv-${gone}-0badc0de`);
      mkdirSync(join(left, 'call-1'), { recursive: true });
      const procs = join(left, 'call-1', 'cgroup.procs');
      const escapee = spawn(
        '/bin/sh',
        ['-c', `echo $$ > '${procs}'; trap '' TERM; exec sleep 1000`],
        {
          detached: true,
          stdio: 'ignore',
        },
      );
      started.push(escapee);
      await waitFor(() => readFileSync(procs, 'utf8').includes(String(escapee.pid)), 'the move');
      try {
        const watchdog = startWatchdog(process.pid, tempDir(), { parent, root: '' });
        watchdog.child.stdin!.end('bye\n');
        await watchdog.exited;
        expect(processAlive(escapee.pid!)).toBe(false);
        expect(existsSync(left)).toBe(false);
      } finally {
        for (const dir of [join(left, 'call-1'), left, parent]) {
          try {
            rmdirSync(dir);
          } catch {
            // Removed by the watchdog.
          }
        }
      }
    },
  );
});
