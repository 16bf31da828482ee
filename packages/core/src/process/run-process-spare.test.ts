import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cgroupRoot } from './call-cgroup.js';
import { runProcess } from './run-process.js';
import { prepareProcessStarts } from './spare-launcher.js';
import { processAlive } from './test-support/process-alive.js';
import { sparesOf, until } from './test-support/spares.js';

// `agentv eval` calls prepareProcessStarts before it loads its cases: where calls enter
// cgroups, the run's first runProcess then starts in a shell that is already in its cgroup,
// with its stdout and stderr already capture files. What the process sees and what the
// caller gets must be exactly what a directly spawned process sees and gives.

const dir = mkdtempSync(join(tmpdir(), 'agentv-first-spare-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const required = process.getuid?.() === 0 || process.env.CI !== undefined;
const available = cgroupRoot() !== undefined;
const PATH = process.env.PATH ?? '/usr/bin:/bin';

/** Prepares a spare and waits until it is in its call cgroup; returns its pid. */
async function readySpare(): Promise<number> {
  prepareProcessStarts();
  const [spare] = await until(
    () => sparesOf(process.pid),
    (spares) => spares.length === 1 && /\/call-\d+$/.test(spares[0]!.cgroup),
    'a spare launcher in its cgroup',
  );
  return spare!.pid;
}

describe.runIf(available || required)("a run's first process, started in a prepared shell", () => {
  it('gets exactly its environment, folder and stdin, and its whole output and exit code are read', async () => {
    const spare = await readySpare();
    // Keys it inherits count, as spawn reads an environment (the cli provider's lays its
    // variables over process.env).
    const env = Object.assign(Object.create({ INHERITED: 'from the prototype' }), {
      PATH,
      QUOTED: `it's "$HOME" \`x\` \\ and\na second line`,
    });
    const outcome = await runProcess({
      command:
        'echo "$$"; pwd; env | sort; cat /proc/self/cgroup; cat; head -c 3000000 /dev/zero | tr "\\0" x; echo; echo to-stderr >&2; exit 7',
      cwd: dir,
      env,
      stdin: 'from stdin\n',
    });
    const [pid, folder, ...rest] = outcome.stdout.split('\n');
    expect(Number(pid)).toBe(spare);
    expect(folder).toBe(dir);
    const printed = rest.join('\n');
    expect(
      printed
        .split('\n')
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => line.split('=')[0]),
    ).toEqual(['INHERITED', 'PATH', 'PWD', 'QUOTED']);
    expect(printed).toContain(`QUOTED=${env.QUOTED}`);
    expect(printed).toMatch(/0::\S*\/call-\d+\n/);
    expect(printed).toContain('from stdin\n');
    // Three million bytes written just before the exit are all there.
    expect(printed).toContain(`from stdin\n${'x'.repeat(3_000_000)}\n`);
    expect(outcome.stderr).toBe('to-stderr\n');
    expect(outcome.exitCode).toBe(7);
    expect(outcome.timedOut).toBe(false);
    // Used once: the next process is spawned directly.
    const next = await runProcess({ command: 'echo "$$"', cwd: dir, env: { PATH } });
    expect(Number(next.stdout)).not.toBe(spare);
    expect(next.stdout).toMatch(/^\d+\n$/);
  });

  it('without stdin to write, reads /dev/null, as a process spawned with stdin ignored', async () => {
    const spare = await readySpare();
    const outcome = await runProcess({
      command: 'echo "$$"; readlink /proc/self/fd/0; cat; echo end',
      cwd: dir,
      env: { PATH },
    });
    expect(outcome.stdout).toBe(`${spare}\n/dev/null\nend\n`);
    expect(outcome.exitCode).toBe(0);
  });

  it('a timed-out process started in it is stopped with what it left running', async () => {
    const spare = await readySpare();
    const outcome = await runProcess({
      command: 'echo "$$"; trap "" TERM; sleep 1000 & echo $!; wait',
      cwd: dir,
      env: { PATH },
      timeoutMs: 500,
      killGraceMs: 200,
    });
    const [pid, sleeper] = outcome.stdout.trim().split('\n').map(Number);
    expect(pid).toBe(spare);
    expect(outcome.timedOut).toBe(true);
    expect(outcome.signalName).toBe('SIGKILL');
    expect(processAlive(sleeper!)).toBe(false);
  });

  it('is kept for a later process when the program is not found or the folder is missing', async () => {
    const spare = await readySpare();
    await expect(
      runProcess({ command: ['agentv-no-such-program'], cwd: dir, env: { PATH } }),
    ).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(
      runProcess({ command: 'true', cwd: join(dir, 'missing'), env: { PATH } }),
    ).rejects.toMatchObject({ code: 'ENOENT' });
    const outcome = await runProcess({ command: 'echo "$$"', cwd: dir, env: { PATH } });
    expect(Number(outcome.stdout)).toBe(spare);
  });

  it('an aborted call leaves it for the next one', async () => {
    const spare = await readySpare();
    const controller = new AbortController();
    controller.abort();
    const aborted = await runProcess({
      command: 'echo ran',
      cwd: dir,
      env: { PATH },
      signal: controller.signal,
    });
    expect(aborted).toMatchObject({ aborted: true, stdout: '' });
    expect(readFileSync(`/proc/${spare}/cmdline`, 'utf8')).toContain('read -r script');
    const outcome = await runProcess({ command: 'echo "$$"', cwd: dir, env: { PATH } });
    expect(Number(outcome.stdout)).toBe(spare);
  });
});
