import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ProcessOutcome, runProcess } from './run-process.js';

const KIB = 1024;
const MIB = 1024 * KIB;
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentv-output-guard-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Reads the pid a command wrote to `pidFile` (first thing it does), waiting for it. */
async function pidOf(pidFile: string): Promise<number> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const text = readFileOrEmpty(pidFile).trim();
    if (text !== '') return Number(text);
    await delay(10);
  }
  throw new Error('the command did not start');
}

function readFileOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/**
 * Samples the file behind descriptor `fd` of `pid` until `running` settles: the most disk
 * space it took at once (allocated blocks) and the most bytes written to it (its size,
 * holes included).
 */
async function watchDescriptor(pid: number, fd: number, running: Promise<ProcessOutcome>) {
  let settled = false;
  void running.finally(() => {
    settled = true;
  });
  let maxAllocated = 0;
  let maxSize = 0;
  while (!settled) {
    try {
      const stat = statSync(`/proc/${pid}/fd/${fd}`);
      maxAllocated = Math.max(maxAllocated, stat.blocks * 512);
      maxSize = Math.max(maxSize, stat.size);
    } catch {
      // The process has just ended.
    }
    await delay(10);
  }
  return { maxAllocated, maxSize, outcome: await running };
}

describe.runIf(process.platform === 'linux')('runProcess output limits', () => {
  it('stops an endless stdout writer past the ceiling and reads none of its output', async () => {
    const outcome = await runProcess({
      command: 'exec yes',
      cwd: dir,
      timeoutMs: 60_000,
      outputLimit: { stdoutBytes: 64 * KIB },
    });
    expect(outcome.outputLimitExceeded).toMatchObject({
      source: 'stdout',
      maxBytes: 64 * KIB,
      stopped: true,
    });
    expect(outcome.outputLimitExceeded!.bytes).toBeGreaterThan(64 * KIB);
    expect(outcome.stdout).toBe('');
    expect(outcome.signalName).toBe('SIGTERM');
    expect(outcome.timedOut).toBe(false);
  });

  it('reads stdout up to the ceiling whole, and flags one byte more after the process ended', async () => {
    const write = (bytes: number) => `head -c ${bytes} /dev/zero | tr '\\0' a`;
    const at = await runProcess({
      command: write(64 * KIB),
      cwd: dir,
      outputLimit: { stdoutBytes: 64 * KIB },
    });
    expect(at.outputLimitExceeded).toBeUndefined();
    expect(at.stdout).toBe('a'.repeat(64 * KIB));
    const past = await runProcess({
      command: write(64 * KIB + 1),
      cwd: dir,
      outputLimit: { stdoutBytes: 64 * KIB },
    });
    expect(past.outputLimitExceeded).toMatchObject({ source: 'stdout', bytes: 64 * KIB + 1 });
    expect(past.stdout).toBe('');
  });

  it('keeps the disk use of a writer that ignores SIGTERM small while it is given time to end', async () => {
    const pidFile = join(dir, 'pid');
    // SIG_IGN survives exec: cat ignores SIGTERM and writes as fast as the disk takes it.
    const running = runProcess({
      command: `echo $$ > ${pidFile}; trap '' TERM; exec cat /dev/zero`,
      cwd: dir,
      killGraceMs: 1500,
      outputLimit: { stdoutBytes: 64 * KIB },
    });
    const { maxAllocated, maxSize, outcome } = await watchDescriptor(
      await pidOf(pidFile),
      1,
      running,
    );
    expect(outcome.outputLimitExceeded?.stopped).toBe(true);
    expect(outcome.signalName).toBe('SIGKILL');
    // The capture is cut back to the ceiling on every check, so most of what was written is holes.
    expect(maxSize).toBeGreaterThan(8 * MIB);
    expect(maxAllocated).toBeLessThan(maxSize / 2);
  });

  it('keeps only the head of stdout on disk when it is limited without a ceiling', async () => {
    const pidFile = join(dir, 'pid');
    const running = runProcess({
      command: `echo $$ > ${pidFile}; exec yes`,
      cwd: dir,
      // Time enough for `yes` to write well over 8 MiB on a busy machine.
      timeoutMs: 4000,
      maxStdoutBytes: 1000,
    });
    const { maxAllocated, maxSize, outcome } = await watchDescriptor(
      await pidOf(pidFile),
      1,
      running,
    );
    expect(outcome.timedOut).toBe(true);
    expect(outcome.outputLimitExceeded).toBeUndefined();
    expect(outcome.stdout).toBe('y\n'.repeat(500));
    expect(maxSize).toBeGreaterThan(8 * MIB);
    expect(maxAllocated).toBeLessThan(maxSize / 2);
  });

  it('keeps only the tail of an endless stderr on disk, without stopping the process for it', async () => {
    const pidFile = join(dir, 'pid');
    const running = runProcess({
      command: `echo $$ > ${pidFile}; exec yes >&2`,
      cwd: dir,
      // Time enough for `yes` to write well over 8 MiB on a busy machine.
      timeoutMs: 4000,
      maxStderrBytes: 4 * KIB,
    });
    const { maxAllocated, maxSize, outcome } = await watchDescriptor(
      await pidOf(pidFile),
      2,
      running,
    );
    expect(outcome.timedOut).toBe(true);
    expect(outcome.outputLimitExceeded).toBeUndefined();
    expect(outcome.stderr.length).toBeLessThanOrEqual(4 * KIB);
    expect(outcome.stderr.length).toBeGreaterThan(3 * KIB);
    expect(outcome.stderr).toMatch(/^(y\n)+$|^\n(y\n)+$/);
    expect(maxSize).toBeGreaterThan(8 * MIB);
    expect(maxAllocated).toBeLessThan(maxSize / 2);
  });

  it("keeps only the tail of an endless stdout on disk with keepStdout: 'tail'", async () => {
    const pidFile = join(dir, 'pid');
    const running = runProcess({
      command: `echo $$ > ${pidFile}; exec yes`,
      cwd: dir,
      // Time enough for `yes` to write well over 8 MiB on a busy machine.
      timeoutMs: 4000,
      maxStdoutBytes: 4 * KIB,
      keepStdout: 'tail',
    });
    const { maxAllocated, maxSize, outcome } = await watchDescriptor(
      await pidOf(pidFile),
      1,
      running,
    );
    expect(outcome.timedOut).toBe(true);
    expect(outcome.stdout.length).toBeLessThanOrEqual(4 * KIB);
    expect(outcome.stdout.length).toBeGreaterThan(3 * KIB);
    expect(outcome.stdout).toMatch(/^(y\n)+$|^\n(y\n)+$/);
    expect(maxSize).toBeGreaterThan(8 * MIB);
    expect(maxAllocated).toBeLessThan(maxSize / 2);
  });

  it("keeps the last line of a long stdout with keepStdout: 'tail'", async () => {
    const outcome = await runProcess({
      command: "head -c 300000 /dev/zero | tr '\\0' x; printf '\\nlast\\n'",
      cwd: dir,
      maxStdoutBytes: 4 * KIB,
      keepStdout: 'tail',
    });
    expect(outcome.stdout.endsWith('x\nlast\n')).toBe(true);
    expect(outcome.stdout.length).toBe(4 * KIB);
  });

  it('keeps stderr whole below the point where it is trimmed', async () => {
    const outcome = await runProcess({
      command:
        "printf 'first\\n' >&2; head -c 300000 /dev/zero | tr '\\0' x >&2; printf '\\nlast\\n' >&2",
      cwd: dir,
      maxStderrBytes: 4 * KIB,
    });
    expect(outcome.stderr.endsWith('x\nlast\n')).toBe(true);
    expect(outcome.stderr.length).toBe(4 * KIB);
  });

  it('stops a process whose output file passes its ceiling and empties the file', async () => {
    const output = join(dir, 'answer.txt');
    const outcome = await runProcess({
      command: `exec yes > ${output}`,
      cwd: dir,
      timeoutMs: 60_000,
      outputLimit: { files: [{ path: output, maxBytes: 64 * KIB }] },
    });
    expect(outcome.outputLimitExceeded).toMatchObject({
      source: output,
      maxBytes: 64 * KIB,
      stopped: true,
    });
    expect(outcome.timedOut).toBe(false);
    expect(statSync(output).blocks * 512).toBeLessThan(64 * MIB);
  });

  it('flags an output file past its ceiling after the process ended, and never empties a file through a symbolic link', async () => {
    const precious = join(dir, 'precious.txt');
    writeFileSync(precious, 'x'.repeat(100 * KIB));
    const output = join(dir, 'answer.txt');
    const outcome = await runProcess({
      command: `ln -s ${precious} ${output}; sleep 30`,
      cwd: dir,
      timeoutMs: 60_000,
      outputLimit: { files: [{ path: output, maxBytes: 64 * KIB }] },
    });
    expect(outcome.outputLimitExceeded).toMatchObject({ source: output, stopped: true });
    expect(readFileSync(precious, 'utf8')).toBe('x'.repeat(100 * KIB));

    const late = await runProcess({
      command: `exec head -c 70000 /dev/zero > ${join(dir, 'late.txt')}`,
      cwd: dir,
      outputLimit: { files: [{ path: join(dir, 'late.txt'), maxBytes: 64 * KIB }] },
    });
    // Flagged in full whichever check sees it: the last one, or (on a busy machine) a check
    // made just before the process's exit was seen.
    expect(late.outputLimitExceeded).toMatchObject({
      source: join(dir, 'late.txt'),
      maxBytes: 64 * KIB,
      bytes: 70000,
    });
  });

  it('flags a file a leftover writes past its ceiling after the process ended as written, not stopped, and empties it', async () => {
    const leftover = join(dir, 'leftover.txt');
    // The leftover ignores SIGTERM (from its start: the shell ignores it before the fork, so
    // the SIGTERM sent when the shell exits cannot come first), writes after its parent has
    // ended and keeps running for a second, so the checks made while the group settles see it.
    const outcome = await runProcess({
      command: `trap '' TERM; (sleep 0.3; head -c 70000 /dev/zero > ${leftover}; sleep 1) & exit 0`,
      cwd: dir,
      killGraceMs: 5000,
      outputLimit: { files: [{ path: leftover, maxBytes: 64 * KIB }] },
    });
    expect(outcome.exitCode).toBe(0);
    expect(outcome.outputLimitExceeded).toEqual({
      source: leftover,
      maxBytes: 64 * KIB,
      bytes: 70000,
      stopped: false,
    });
    expect(statSync(leftover).size).toBe(0);
  });

  it('is not bothered by a watched file that is never written', async () => {
    const outcome = await runProcess({
      command: 'echo hello',
      cwd: dir,
      outputLimit: { stdoutBytes: 64 * KIB, files: [{ path: join(dir, 'none'), maxBytes: 1 }] },
    });
    expect(outcome).toMatchObject({ stdout: 'hello\n', exitCode: 0 });
    expect(outcome.outputLimitExceeded).toBeUndefined();
  });
});
