import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cgroupRoot } from './call-cgroup.js';
import { type LongLivedProcess, startProcess } from './start-process.js';
import { processAlive } from './test-support/process-alive.js';
import { LAUNCHER_TEXT, sparesOf, until } from './test-support/spares.js';

// Where calls enter cgroups, a process that says more follow (`anotherFollows`) leaves a shell
// ready in the next call's cgroup, and the next such process starts in it.

const dir = mkdtempSync(join(tmpdir(), 'agentv-spare-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const required = process.getuid?.() === 0 || process.env.CI !== undefined;
const available = cgroupRoot() !== undefined;
const PATH = process.env.PATH ?? '/usr/bin:/bin';
/** A spare launcher of this process that has entered a call cgroup. */
const enteredSpare = () =>
  until(
    () => sparesOf(process.pid),
    (spares) => spares.length === 1 && /\/call-\d+$/.test(spares[0]!.cgroup),
    'a spare launcher in its cgroup',
  ).then((spares) => spares[0]!);

/** All the process wrote to stdout: read to the pipe's end, which can come after `done`. */
async function output(child: LongLivedProcess): Promise<string> {
  let text = '';
  child.stdout.on('data', (chunk: string) => {
    text += chunk;
  });
  await Promise.all([once(child.stdout, 'end'), child.done]);
  return text;
}

describe.runIf(available || required)('a spare launcher for the next process', () => {
  it('is ready in its own cgroup while the first runs, and the next process starts in it', async () => {
    const first = await startProcess({
      command: ['cat'],
      cwd: dir,
      env: { PATH },
      anotherFollows: true,
    });
    const spare = await enteredSpare();
    expect(spare.cgroup).not.toBe(
      readFileSync(`/proc/${first.pid}/cgroup`, 'utf8').split('0::')[1]?.trim(),
    );
    await first.stop();

    const env = { PATH, QUOTED: `it's "$HOME" \`x\` \\ and\na second line`, PWD: '/elsewhere' };
    const next = await startProcess({
      command: ['sh', '-c', 'echo "$$"; env; cat /proc/self/cgroup; cat'],
      cwd: dir,
      env,
      anotherFollows: true,
    });
    expect(next.pid).toBe(spare.pid);
    next.stdin.end('from stdin\n');
    const text = await output(next);
    const [pid, ...rest] = text.split('\n');
    expect(Number(pid)).toBe(spare.pid);
    const printed = rest.join('\n');
    // Exactly the given environment; PWD is the working folder, as the shell that enters a cgroup sets it.
    for (const line of [`PATH=${PATH}`, `QUOTED=${env.QUOTED}`, `PWD=${dir}`]) {
      expect(printed).toContain(line);
    }
    expect(
      printed
        .split('\n')
        .filter((line) => /^[A-Z_]+=/.test(line))
        .sort(),
    ).toEqual(
      ['PATH', 'PWD', 'QUOTED'].map((name) => expect.stringMatching(new RegExp(`^${name}=`))),
    );
    expect(printed).toContain(`0::${spare.cgroup}`);
    expect(printed.endsWith('from stdin\n')).toBe(true);
  });

  it('is left for a later process when the program is not found or the folder is missing', async () => {
    const first = await startProcess({
      command: ['true'],
      cwd: dir,
      env: { PATH },
      anotherFollows: true,
    });
    await first.done;
    const spare = await enteredSpare();
    await expect(
      startProcess({
        command: ['agentv-no-such-program'],
        cwd: dir,
        env: { PATH },
        anotherFollows: true,
      }),
    ).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(
      startProcess({
        command: ['true'],
        cwd: join(dir, 'missing'),
        env: { PATH },
        anotherFollows: true,
      }),
    ).rejects.toMatchObject({ code: 'ENOENT' });
    const next = await startProcess({
      command: 'echo $$',
      cwd: dir,
      env: { PATH },
      anotherFollows: true,
    });
    expect(next.pid).toBe(spare.pid);
    const text = await output(next);
    expect({ text, exit: await next.done }).toEqual({
      text: `${spare.pid}\n`,
      exit: { exitCode: 0 },
    });
  });

  it('a timed-out process started in it is stopped with its whole group', async () => {
    await (await startProcess({ command: ['true'], cwd: dir, env: { PATH }, anotherFollows: true }))
      .done;
    const spare = await enteredSpare();
    const next = await startProcess({
      command: 'trap "" TERM; sleep 1000 & echo $!; wait',
      cwd: dir,
      env: { PATH },
      killGraceMs: 200,
      anotherFollows: true,
    });
    expect(next.pid).toBe(spare.pid);
    const [chunk] = await once(next.stdout, 'data');
    const sleeper = Number(String(chunk).trim());
    expect(processAlive(sleeper)).toBe(true);
    expect((await next.kill()).signalName).toBe('SIGKILL');
    expect(processAlive(sleeper)).toBe(false);
  });

  describe('never outlives the process that made it', () => {
    const core = fileURLToPath(new URL('../../dist/provider-utils.js', import.meta.url));
    // Starts one process that says more follow, prints the spare's pid once it is in its cgroup,
    // then either returns (nothing else keeps it running) or waits forever.
    const script = (thenWait: boolean) => `
      const { readdirSync, readFileSync } = require('node:fs');
      (async () => {
        const { startProcess } = await import(${JSON.stringify(core)});
        await (await startProcess({ command: ['true'], cwd: '/', env: {}, anotherFollows: true })).done;
        for (;;) {
          for (const entry of readdirSync('/proc')) {
            try {
              const stat = readFileSync('/proc/' + entry + '/stat', 'utf8');
              if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
              if (!readFileSync('/proc/' + entry + '/cmdline', 'utf8').includes(${JSON.stringify(LAUNCHER_TEXT)})) continue;
              if (!/\\/call-\\d+\\n/.test(readFileSync('/proc/' + entry + '/cgroup', 'utf8'))) continue;
              console.log(entry);
              ${thenWait ? 'setInterval(() => {}, 1000);' : ''}
              return;
            } catch {}
          }
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();`;

    async function spareOfChild(thenWait: boolean) {
      const child = spawn(process.execPath, ['-e', script(thenWait)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const [chunk] = await once(child.stdout, 'data');
      return { child, spare: Number(String(chunk).trim()) };
    }

    it('does not keep it running, and is stopped when it exits', async () => {
      const { child, spare } = await spareOfChild(false);
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
      await until(
        () => processAlive(spare),
        (alive) => !alive,
        'the spare to be stopped',
      );
    });

    it('is stopped when it is killed with kill -9', async () => {
      const { child, spare } = await spareOfChild(true);
      expect(processAlive(spare)).toBe(true);
      child.kill('SIGKILL');
      await once(child, 'exit');
      await until(
        () => processAlive(spare),
        (alive) => !alive,
        'the spare to be stopped',
      );
    });
  });
});
