import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupHasLiveMembers } from './process-group.js';
import { runProcess } from './run-process.js';
import { spawnHelper, spawnHelperReady } from './spawn-helper.js';
import { SPAWN_HELPER_SCRIPT } from './spawn-helper-script.js';
import { processAlive } from './test-support/process-alive.js';

// Every process of this file goes through the helper once it is ready (see beforeAll).
process.env.AGENTV_SPAWN_HELPER = '1';

const dir = mkdtempSync(join(tmpdir(), 'agentv-spawn-helper-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of the process that started the shell running the command. */
async function parentOfCommand(): Promise<number> {
  const outcome = await runProcess({ command: 'echo $PPID', cwd: dir });
  return Number(outcome.stdout.trim());
}

async function waitFor(condition: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await delay(20);
  }
  return true;
}

describe.runIf(process.platform === 'linux')('processes started by the spawn helper', () => {
  let helperPid = 0;
  beforeAll(async () => {
    expect(await spawnHelperReady(200)).toBe(true);
    helperPid = await parentOfCommand();
  });

  it('are started by the helper, not by AgentV', () => {
    expect(helperPid).toBeGreaterThan(0);
    expect(helperPid).not.toBe(process.pid);
  });

  it('get the output captured, the exit code, stdin, cwd and the whole environment', async () => {
    const env: Record<string, string | undefined> = Object.create({
      BASE: 'base',
      PATH: '/usr/bin:/bin',
    });
    env.CALL = 'call =x';
    env.SKIPPED = undefined;
    const outcome = await runProcess({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's ${VAR-default}
      command: 'read line; echo "$line|$BASE|$CALL|${SKIPPED-unset}|$(pwd)"; echo err >&2; exit 7',
      cwd: dir,
      env,
      stdin: 'from stdin\n',
    });
    expect(outcome).toMatchObject({
      stdout: `from stdin|base|call =x|unset|${dir}\n`,
      stderr: 'err\n',
      exitCode: 7,
      timedOut: false,
    });
  });

  it('fail to start with the same error as a direct spawn', async () => {
    const missing = join(dir, 'no-such-program');
    const error = (await runProcess({ command: [missing, 'arg'], cwd: dir }).catch(
      (caught: unknown) => caught,
    )) as NodeJS.ErrnoException & { spawnargs: string[] };
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe(`spawn ${missing} ENOENT`);
    expect(error).toMatchObject({ code: 'ENOENT', syscall: `spawn ${missing}`, path: missing });
    expect(error.spawnargs).toEqual(['arg']);

    const invalid = await runProcess({ command: 'true', cwd: dir, env: { BAD: 'a\0b' } }).catch(
      (caught: unknown) => caught,
    );
    expect(invalid).toBeInstanceOf(TypeError);
    expect((invalid as NodeJS.ErrnoException).code).toBe('ERR_INVALID_ARG_VALUE');
  });

  it('are stopped with their whole group on timeout', async () => {
    const pidFile = join(dir, 'background.pid');
    const outcome = await runProcess({
      command: `sleep 30 & echo $! > ${pidFile}; wait`,
      cwd: dir,
      // Long enough for the shell to start and write the pid on a busy machine.
      timeoutMs: 3000,
      killGraceMs: 200,
    });
    expect(outcome.timedOut).toBe(true);
    const background = Number(readFileSync(pidFile, 'utf8'));
    expect(processAlive(background)).toBe(false);
  });

  it('are stopped, and reported killed, when the helper dies; later ones start directly', async () => {
    const helper = spawnHelper(200);
    expect(helper).toBeDefined();
    const capture = openSync(join(dir, 'dies.out'), 'w');
    try {
      const child = helper!.spawn({
        file: '/bin/sh',
        args: ['-c', 'exec sleep 30'],
        cwd: dir,
        env: { PATH: '/usr/bin:/bin' },
        stdout: capture,
        stderr: capture,
      });
      // Once AgentV has the pid: a process the helper started but had not reported yet is one
      // AgentV cannot know of (see `failed` in spawn-helper.ts).
      const pid = await child.started;
      process.kill(helperPid, 'SIGKILL');
      expect(await child.ended).toEqual({ code: null, signal: 'SIGKILL' });
      expect(await waitFor(() => !processAlive(pid))).toBe(true);
    } finally {
      closeSync(capture);
    }
    expect(await parentOfCommand()).toBe(process.pid);
  });
});

describe.runIf(process.platform === 'linux')('the spawn helper on its own', () => {
  it('says when it cannot open its owner’s capture files, so that the owner starts it instead', async () => {
    const helper = spawn(
      process.execPath,
      ['-e', SPAWN_HELPER_SCRIPT, String(process.pid), '200'],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    let text = '';
    helper.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
    });
    const request = { i: 3, f: '/bin/true', a: [], c: dir, e: [], o: 987_654, r: 987_654 };
    helper.stdin.write(`${JSON.stringify(request)}\n`);
    expect(await waitFor(() => text.split('\n').length > 2)).toBe(true);
    const answer = JSON.parse(text.split('\n')[1]!);
    expect(answer).toMatchObject({ i: 3, u: 1, t: { code: 'ENOENT' } });
    helper.stdin.end();
  });

  it('stops what it started when its owner goes away (its stdin closes)', async () => {
    const capture = join(dir, 'capture');
    const fd = openSync(capture, 'w');
    try {
      const helper = spawn(
        process.execPath,
        ['-e', SPAWN_HELPER_SCRIPT, String(process.pid), '200'],
        {
          stdio: ['pipe', 'pipe', 'inherit'],
        },
      );
      const lines: unknown[] = [];
      let text = '';
      helper.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
        const parts = text.split('\n');
        text = parts.pop() ?? '';
        for (const part of parts) lines.push(JSON.parse(part));
      });
      const request = {
        i: 0,
        f: '/bin/sh',
        a: ['-c', 'sleep 30 & wait'],
        c: dir,
        e: ['PATH=/usr/bin:/bin'],
        o: fd,
        r: fd,
      };
      helper.stdin.write(`${JSON.stringify(request)}\n`);
      expect(
        await waitFor(() => lines.some((line) => (line as { p?: number }).p !== undefined)),
      ).toBe(true);
      const pid = (lines.find((line) => (line as { p?: number }).p !== undefined) as { p: number })
        .p;
      expect(groupHasLiveMembers(pid)).toBe(true);
      const exited = new Promise((resolve) => helper.once('exit', resolve));
      helper.stdin.end();
      expect(await waitFor(() => !groupHasLiveMembers(pid))).toBe(true);
      await exited;
    } finally {
      closeSync(fd);
    }
  });
});
