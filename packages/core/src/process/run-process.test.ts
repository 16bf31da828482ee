import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cgroupRoot } from './call-cgroup.js';
import { groupHasLiveMembers } from './process-group.js';
import { runProcess } from './run-process.js';
import { STDERR_EXCERPT_CHARS, stderrErrorLine, stderrExcerpt } from './stderr-excerpt.js';
import { processAlive } from './test-support/process-alive.js';

const node = JSON.stringify(process.execPath);

describe('runProcess output', () => {
  it('captures all output of a program that exits right after writing it', async () => {
    // Through a socket, most of this would be lost: Node queues what does not fit
    // and process.exit() drops the queue.
    const script = [
      "for (let i = 0; i < 3000; i++) process.stdout.write('answer line ' + i + '\\n');",
      "for (let i = 0; i < 500; i++) process.stderr.write('log line ' + i + ' 🚀\\n');",
      'process.exit(3);',
    ].join('');
    for (let run = 0; run < 3; run++) {
      const outcome = await runProcess({
        command: [process.execPath, '-e', script],
        cwd: tmpdir(),
      });
      expect(outcome.exitCode).toBe(3);
      expect(outcome.stdout.split('\n')).toHaveLength(3001);
      expect(outcome.stdout.endsWith('answer line 2999\n')).toBe(true);
      expect(outcome.stderr.endsWith('log line 499 🚀\n')).toBe(true);
    }
  });

  it('leaves no capture file behind in the temp directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentv-captures-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = dir;
    try {
      const outcome = await runProcess({ command: 'echo out; echo err >&2', cwd: dir });
      expect(outcome).toMatchObject({ stdout: 'out\n', stderr: 'err\n', exitCode: 0 });
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the start of stdout and the end of stderr when limited', async () => {
    const script =
      "process.stdout.write('a'.repeat(1000) + 'END'); process.stderr.write('🚀x'.repeat(100) + 'last');";
    const outcome = await runProcess({
      command: [process.execPath, '-e', script],
      cwd: tmpdir(),
      maxStdoutBytes: 10,
      maxStderrBytes: 11,
    });
    expect(outcome.stdout).toBe('a'.repeat(10));
    // The cut falls inside an emoji, whose remaining bytes are dropped.
    expect(outcome.stderr).toBe('x🚀xlast');
  });

  it('does not wait for a process that left the group and still holds the output open', async () => {
    // Waiting for the daemon would run into the test's timeout. The command exits only once
    // the daemon has left its group (it writes its pid after setsid), so no kill can race it.
    const command =
      'f=$(mktemp); setsid sh -c "echo \\$\\$ > $f; exec sleep 30" & while [ ! -s "$f" ]; do sleep 0.01; done; cat "$f"; rm -f "$f"';
    const outcome = await runProcess({ command, cwd: tmpdir() });
    const daemon = Number(outcome.stdout);
    try {
      expect(outcome.exitCode).toBe(0);
      // In a cgroup the daemon is stopped with the command; a process group cannot hold it.
      expect(processAlive(daemon)).toBe(cgroupRoot() === undefined);
    } finally {
      if (processAlive(daemon)) process.kill(daemon, 'SIGKILL');
    }
  });

  it('stops what the command left running in its group once it exits', async () => {
    const outcome = await runProcess({ command: 'sleep 30 & echo $!', cwd: tmpdir() });
    expect(outcome).toMatchObject({ exitCode: 0, timedOut: false, aborted: false });
    expect(processAlive(Number(outcome.stdout))).toBe(false);
  });

  it('runs an argv list without a shell', async () => {
    const outcome = await runProcess({ command: ['echo', '$HOME', '; true'], cwd: tmpdir() });
    expect(outcome.stdout).toBe('$HOME ; true\n');
  });
});

describe('runProcess input and environment', () => {
  it('writes stdin and closes it; without stdin the process reads end-of-file', async () => {
    const echo = `${node} -e "process.stdin.pipe(process.stdout)"`;
    const fed = await runProcess({ command: echo, cwd: tmpdir(), stdin: 'x'.repeat(300_000) });
    expect(fed.stdout).toHaveLength(300_000);
    const closed = await runProcess({ command: echo, cwd: tmpdir() });
    expect(closed).toMatchObject({ stdout: '', exitCode: 0 });
  });

  it('copes with a process that exits without reading a large stdin', async () => {
    const outcome = await runProcess({
      command: 'exit 4',
      cwd: tmpdir(),
      stdin: 'y'.repeat(5_000_000),
    });
    expect(outcome.exitCode).toBe(4);
  });

  it('uses the given environment as the whole environment, leaving process.env alone', async () => {
    process.env.AGENTV_TEST_LIVE = 'live';
    const live = process.env;
    try {
      const outcome = await runProcess({
        command: 'echo "[$AGENTV_TEST_GIVEN][$AGENTV_TEST_LIVE]"',
        cwd: tmpdir(),
        env: { AGENTV_TEST_GIVEN: 'given' },
      });
      expect(outcome.stdout).toBe('[given][]\n');
      expect(process.env).toBe(live);
      const inherited = await runProcess({ command: 'echo "$AGENTV_TEST_LIVE"', cwd: tmpdir() });
      expect(inherited.stdout).toBe('live\n');
    } finally {
      delete process.env.AGENTV_TEST_LIVE;
    }
  });
});

describe('runProcess stopping', () => {
  it('on timeout stops the whole group, SIGKILL after SIGTERM is ignored', async () => {
    const pidFile = join(tmpdir(), `agentv-run-process-${process.pid}-${Date.now()}`);
    // The shell ignores SIGTERM and so does its grandchild; only SIGKILL ends them.
    const command = `trap '' TERM; sleep 30 & echo $! > ${pidFile}; echo started; wait`;
    try {
      const outcome = await runProcess({
        command,
        cwd: tmpdir(),
        // Long enough for the shell to start and write on a busy machine.
        timeoutMs: 3000,
        killGraceMs: 100,
      });
      expect(outcome).toMatchObject({ timedOut: true, aborted: false, signalName: 'SIGKILL' });
      expect(outcome.stdout).toBe('started\n');
      expect(processAlive(Number(readFileSync(pidFile, 'utf8')))).toBe(false);
    } finally {
      rmSync(pidFile, { force: true });
    }
  });

  it('does not report a process that finished in time as timed out', async () => {
    const outcome = await runProcess({ command: 'echo done', cwd: tmpdir(), timeoutMs: 60_000 });
    expect(outcome).toMatchObject({ stdout: 'done\n', exitCode: 0, timedOut: false });
  });

  it('stops the group when the signal fires, and starts nothing when it already has', async () => {
    const controller = new AbortController();
    const pending = runProcess({
      command: 'echo started; sleep 30',
      cwd: tmpdir(),
      signal: controller.signal,
      killGraceMs: 100,
    });
    controller.abort();
    const outcome = await pending;
    expect(outcome).toMatchObject({ aborted: true, timedOut: false, signalName: 'SIGTERM' });

    const skipped = await runProcess({
      command: `touch ${join(tmpdir(), 'agentv-should-not-exist')}`,
      cwd: tmpdir(),
      signal: controller.signal,
    });
    expect(skipped).toMatchObject({ aborted: true, stdout: '' });
    expect(skipped.exitCode).toBeUndefined();
  });

  it('leaves no live group behind', async () => {
    const outcome = await runProcess({ command: 'sleep 30 & sleep 30 & echo $$', cwd: tmpdir() });
    expect(groupHasLiveMembers(Number(outcome.stdout))).toBe(false);
  });
});

describe('runProcess start failures', () => {
  it('rejects with the spawn error when the command cannot start', async () => {
    await expect(
      runProcess({ command: ['agentv-no-such-command'], cwd: tmpdir() }),
    ).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(
      runProcess({ command: 'true', cwd: join(tmpdir(), 'agentv-no-such-dir') }),
    ).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('rejects an environment the OS cannot take', async () => {
    await expect(
      runProcess({ command: 'true', cwd: tmpdir(), env: { AGENTV_TEST_BAD: 'a\0b' } }),
    ).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_VALUE' });
  });
});

describe('stderrExcerpt', () => {
  it('keeps short stderr whole', () => {
    expect(stderrExcerpt('  short\n')).toBe('short');
  });

  it('keeps the first and last lines of long stderr and says how many lines were cut', () => {
    const lines = Array.from({ length: 200 }, (_, index) => `line ${index} ${'.'.repeat(30)}`);
    const excerpt = stderrExcerpt(['Error: the cause', ...lines, 'the end'].join('\n'));
    const kept = excerpt.split('\n');
    expect(kept[0]).toBe('Error: the cause');
    expect(kept.at(-1)).toBe('the end');
    const marker = kept.find((line) => line.startsWith('… '));
    expect(marker).toMatch(/^… \d+ lines cut …$/);
    const cut = Number(marker!.split(' ')[1]);
    expect(kept.length - 1 + cut).toBe(202);
    expect(excerpt.length).toBeLessThanOrEqual(STDERR_EXCERPT_CHARS);
  });

  it('cuts inside a line too long to keep whole, never inside a surrogate pair', () => {
    const excerpt = stderrExcerpt(`${'x'.repeat(5000)}\nthe error`);
    expect(excerpt).toMatch(/^x+\n… \d+ characters cut …\nx+\nthe error$/);
    expect(excerpt.length).toBeLessThanOrEqual(STDERR_EXCERPT_CHARS);
    expect(stderrExcerpt('🚀'.repeat(40), 40)).toMatch(/^(🚀)+\n… \d+ characters cut …\n(🚀)+$/);
  });
});

describe('stderrErrorLine', () => {
  it("finds Node's error line near the top and Python's at the bottom", () => {
    const node = [
      '/project/judge.mjs:3',
      "throw new Error('database unreachable');",
      '^',
      '',
      'Error: database unreachable',
      '    at file:///project/judge.mjs:3:7',
      '',
      'Node.js v20.19.0',
    ].join('\n');
    expect(stderrErrorLine(node)).toBe('Error: database unreachable');
    const python = [
      'Traceback (most recent call last):',
      '  File "/project/judge.py", line 4, in <module>',
      '    raise ValueError("score out of range")',
      'ValueError: score out of range',
    ].join('\n');
    expect(stderrErrorLine(python)).toBe('ValueError: score out of range');
    expect(stderrErrorLine('TypeError [ERR_INVALID_ARG_TYPE]: bad')).toBe(
      'TypeError [ERR_INVALID_ARG_TYPE]: bad',
    );
    expect(stderrErrorLine('just some progress\ndone')).toBeUndefined();
  });

  it("finds a shell's own error line", () => {
    expect(stderrErrorLine('starting agent\nsh: 1: foo: not found')).toBe('sh: 1: foo: not found');
    expect(stderrErrorLine('./run.sh: line 3: foo: command not found')).toBe(
      './run.sh: line 3: foo: command not found',
    );
    expect(stderrErrorLine('/project/judge.mjs:3\nstep 2: done')).toBeUndefined();
  });
});
