import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireCallCgroup, cgroupRoot } from './call-cgroup.js';
import { runProcess } from './run-process.js';
import { startProcess } from './start-process.js';
import { processAlive } from './test-support/process-alive.js';

const dir = mkdtempSync(join(tmpdir(), 'agentv-cgroup-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Starts a process that leaves the group with setsid, ignores SIGTERM and writes its pid to
// the file `name`; `then` runs once it has.
const escapeThen = (name: string, then: string) =>
  `setsid sh -c 'trap "" TERM; echo $$ > ${name}; while :; do sleep 1; done' & ` +
  `while [ ! -s ${name} ]; do sleep 0.01; done; ${then}`;
const pidIn = (name: string) => Number(readFileSync(join(dir, name), 'utf8'));
/** Waits until the escaped process wrote its pid (the file exists before the pid is in it). */
async function pidWritten(name: string): Promise<void> {
  while (!(existsSync(join(dir, name)) && pidIn(name) > 0)) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// As root and in CI cgroups must work: these tests may not skip there.
const required = process.getuid?.() === 0 || process.env.CI !== undefined;
const available = cgroupRoot() !== undefined;

describe('cgroups of started processes', () => {
  it.runIf(required)('are used as root and in CI', () => {
    expect(available).toBe(true);
  });

  describe.runIf(available || required)('hold processes that left the process group', () => {
    it('stops them when the command ends', async () => {
      const outcome = await runProcess({
        command: escapeThen('ends', 'echo done'),
        cwd: dir,
        killGraceMs: 200,
      });
      expect(outcome).toMatchObject({ exitCode: 0, stdout: 'done\n', timedOut: false });
      expect(processAlive(pidIn('ends'))).toBe(false);
    });

    it('stops one that forked twice before setsid', async () => {
      const command =
        `(setsid sh -c 'echo $$ > twice; exec sleep 1000' &) ; ` +
        'while [ ! -s twice ]; do sleep 0.01; done';
      const outcome = await runProcess({ command, cwd: dir });
      expect(outcome.exitCode).toBe(0);
      expect(processAlive(pidIn('twice'))).toBe(false);
    });

    it('stops them on timeout, with SIGKILL after the grace period', async () => {
      const outcome = await runProcess({
        command: escapeThen('timeout', 'sleep 1000'),
        cwd: dir,
        // Long enough for the escaped process to write its pid on a busy machine.
        timeoutMs: 4000,
        killGraceMs: 200,
      });
      expect(outcome.timedOut).toBe(true);
      expect(processAlive(pidIn('timeout'))).toBe(false);
    });

    it('stops them on abort', async () => {
      const controller = new AbortController();
      const running = runProcess({
        command: escapeThen('abort', 'sleep 1000'),
        cwd: dir,
        signal: controller.signal,
        killGraceMs: 200,
      });
      await pidWritten('abort');
      controller.abort();
      expect((await running).aborted).toBe(true);
      expect(processAlive(pidIn('abort'))).toBe(false);
    });

    it('stops them when a program given as an argument list started them', async () => {
      const outcome = await runProcess({
        command: ['sh', '-c', escapeThen('argv', 'true')],
        cwd: dir,
        killGraceMs: 200,
      });
      expect(outcome.exitCode).toBe(0);
      expect(processAlive(pidIn('argv'))).toBe(false);
    });

    it('stops them with a long-lived process', async () => {
      const child = await startProcess({
        command: escapeThen('persistent', 'cat'),
        cwd: dir,
        killGraceMs: 200,
      });
      await pidWritten('persistent');
      await child.stop();
      expect(processAlive(pidIn('persistent'))).toBe(false);
    });

    it('tells whether a process entered the cgroup since the call took it', async () => {
      const cgroup = acquireCallCgroup()!;
      try {
        expect(cgroup.entered()).toBe(false);
        await runProcess({ command: 'true', cwd: dir });
        // Another call's cgroup: not this one.
        expect(cgroup.entered()).toBe(false);
        const outcome = await runProcess({ command: `${cgroup.enter}ls /`, cwd: dir });
        expect(outcome.exitCode).toBe(0);
        expect(cgroup.entered()).toBe(true);
        expect(cgroup.populated()).toBe(false);
      } finally {
        cgroup.release();
      }
    });

    it('reuses the cgroup of a finished call', async () => {
      const root = cgroupRoot()!.root;
      for (let run = 0; run < 5; run++) await runProcess({ command: 'true', cwd: dir });
      const before = readdirSync(root).filter((name) => name.startsWith('call-'));
      for (let run = 0; run < 5; run++) await runProcess({ command: 'true', cwd: dir });
      expect(readdirSync(root).filter((name) => name.startsWith('call-'))).toEqual(before);
    });
  });
});
