import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockResultFile } from './result-file-lock.js';

let dir: string;
let child: ChildProcess | undefined;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agentv-lock-'));
});
afterEach(async () => {
  child?.kill('SIGKILL');
  child = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** A live process other than this one, to hold a lock. */
async function liveProcess(): Promise<number> {
  child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await new Promise((resolve) => child!.once('spawn', resolve));
  return child.pid!;
}

const lockOf = (pid: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ pid, started: '2025-01-01T12:00:00.000Z', host: hostname(), ...extra });

describe('lockResultFile', () => {
  it('holds <file>.lock with its pid until released', async () => {
    const file = path.join(dir, 'results', 'out.jsonl');
    const lock = await lockResultFile(file, dir, () => {});
    expect(lock.path).toBe(`${file}.lock`);
    expect(JSON.parse(await readFile(lock.path, 'utf8'))).toMatchObject({
      pid: process.pid,
      host: hostname(),
    });
    lock.release();
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
    // No temp file of the lock is left behind.
    expect(await readdir(path.join(dir, 'results'))).toEqual([]);
  });

  it('refuses a file whose lock a live process holds, here or on another host', async () => {
    const file = path.join(dir, 'out.jsonl');
    const pid = await liveProcess();
    await writeFile(`${file}.lock`, lockOf(pid));
    await expect(lockResultFile(file, dir, () => {})).rejects.toMatchObject({
      message: `out.jsonl is being written by another agentv run (pid ${pid}, started 2025-01-01T12:00:00.000Z)`,
      hint: 'wait for that run to end, or write to another file; if no agentv run is writing out.jsonl, delete out.jsonl.lock',
    });
    // Another machine's process cannot be looked at: its lock holds, whatever the pid.
    await writeFile(`${file}.lock`, lockOf(999_999_999, { host: 'elsewhere' }));
    await expect(lockResultFile(file, dir, () => {})).rejects.toThrow(
      'out.jsonl is being written by another agentv run (pid 999999999 on elsewhere, started',
    );
    await writeFile(`${file}.lock`, 'something else');
    await expect(lockResultFile(file, dir, () => {})).rejects.toThrow(
      'out.jsonl is locked by out.jsonl.lock, which is not an agentv lock',
    );
  });

  it('takes over a lock whose process is gone, or whose pid another process got since', async () => {
    const file = path.join(dir, 'out.jsonl');
    const notes: string[] = [];
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.once('close', resolve));
    await writeFile(`${file}.lock`, lockOf(gone.pid!));
    const lock = await lockResultFile(file, dir, (note) => notes.push(note));
    expect(notes).toEqual([
      `out.jsonl.lock was left by an agentv run that is no longer running (pid ${gone.pid}, started 2025-01-01T12:00:00.000Z); taking it over`,
    ]);
    expect(JSON.parse(await readFile(lock.path, 'utf8')).pid).toBe(process.pid);
    lock.release();

    if (process.platform === 'linux') {
      // The lock names a live pid, but that process started at another time than its writer.
      await writeFile(`${file}.lock`, lockOf(await liveProcess(), { ticks: '1' }));
      const reused = await lockResultFile(file, dir, (note) => notes.push(note));
      expect(notes).toHaveLength(2);
      reused.release();
    }
  });

  it('takes no lock on a device such as /dev/null', async () => {
    if (!existsSync('/dev/null')) return;
    const lock = await lockResultFile('/dev/null', dir, () => {});
    expect(existsSync('/dev/null.lock')).toBe(false);
    lock.release();
  });
});
