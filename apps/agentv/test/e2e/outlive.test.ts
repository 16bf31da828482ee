import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processAlive } from '../support/processes.js';
import {
  BIN,
  collectRun,
  createProject,
  type Project,
  parseJsonl,
  runAgentv,
} from '../support/project.js';
import { spawnInTerminal } from '../support/run-in-terminal.js';

// Nothing AgentV starts may outlive it: SIGHUP, a closed terminal, kill -9, setsid escapees.

/**
 * Records its pids in pids/<case>.<role>. `quick…` cases answer at once, `slow…` after 0.3 s; `escape` answers after
 * starting a setsid escapee; any other case starts a child, a grandchild, a setsid escapee and a
 * double-forked setsid escapee, all ignoring SIGTERM, and never answers. `$2` is {OUTPUT_FILE}.
 */
const AGENT = `
id=$1
echo $$ > "pids/$id.leader"
cat /proc/$$/cgroup > "pids/$id.cgroup" 2>/dev/null
dirname "$2" > "pids/$id.folder"
case $id in
  quick*) echo done > "$2"; exit 0 ;;
  slow*) sleep 0.3; echo done > "$2"; exit 0 ;;
esac
trap '' TERM
setsid sh -c 'echo $$ > "pids/'$id'.escapee"; exec sleep 1000' &
if [ "$id" = escape ]; then
  while [ ! -s "pids/$id.escapee" ]; do sleep 0.01; done
  echo done > "$2"
  exit 0
fi
sleep 1000 &
echo $! > "pids/$id.child"
sh -c 'sleep 1000 & echo $! > "pids/'$id'.grandchild"; wait' &
(setsid sh -c 'echo $$ > "pids/'$id'.double"; exec sleep 1000' &)
wait
`;

const ROLES = ['leader', 'child', 'grandchild', 'escapee', 'double'];
const ESCAPEES = new Set(['escapee', 'double']);

function targets(extra = ''): string {
  return `targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: sh agent.sh {EVAL_ID} {OUTPUT_FILE}
    max_retries: 0
${extra}`;
}

function cases(...ids: string[]): string {
  return `evalcases:\n${ids
    .map(
      (id) => `  - id: ${id}
    input_messages: [{ role: user, content: ${id} }]
    evaluators: [{ type: contains, value: done }]
`,
    )
    .join('')}`;
}

// As root and in CI, cases run in cgroups and escapees must be stopped; elsewhere (no cgroups)
// AgentV stops process groups only, and escapees are not checked.
const cgroupsRequired = process.getuid?.() === 0 || process.env.CI !== undefined;

let projects: Project[] = [];
let children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  children = [];
  for (const project of projects) {
    for (const pid of Object.values(agentPids(project))) killQuietly(pid);
    await project.cleanup();
  }
  projects = [];
});

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

async function setUp(ids: string[], extraTargets = ''): Promise<Project> {
  const project = await createProject({
    'agent.sh': AGENT,
    'pids/.keep': '',
    '.agentv/targets.yaml': targets(extraTargets),
    'evals/e.yaml': cases(...ids),
  });
  projects.push(project);
  return project;
}

/** The pids the agents recorded so far, by `<case>.<role>`. */
function agentPids(where: Project): Record<string, number> {
  const pids: Record<string, number> = {};
  if (!existsSync(where.file('pids'))) return pids;
  for (const name of readdirSync(where.file('pids'))) {
    const role = name.split('.')[1];
    if (!ROLES.includes(role ?? '')) continue;
    const pid = Number(readFileSync(where.file(`pids/${name}`), 'utf8'));
    if (pid > 0) pids[name] = pid;
  }
  return pids;
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits until the stuck case `id` recorded every pid. */
function allStarted(where: Project, id: string): Promise<void> {
  return until(
    () => ROLES.every((role) => agentPids(where)[`${id}.${role}`] !== undefined),
    `case ${id} to start its processes`,
  );
}

/** The pids of `id` that must be stopped: all of them in a cgroup, else the process group's. */
function mustStop(where: Project, id: string): number[] {
  const inCgroup = cgroupOf(where, id) !== undefined;
  return Object.entries(agentPids(where))
    .filter(([name]) => name.startsWith(`${id}.`))
    .filter(([name]) => inCgroup || !ESCAPEES.has(name.split('.')[1]!))
    .map(([, pid]) => pid);
}

/** The cgroup v2 folder AgentV ran case `id` in, as the agent recorded it; undefined: none. */
function cgroupOf(where: Project, id: string): string | undefined {
  const file = where.file(`pids/${id}.cgroup`);
  const line = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .find((entry) => entry.startsWith('0::'))
    : undefined;
  const relative = line?.slice(3) ?? '';
  if (!/\/agentv-\d+-[0-9a-f]{8}\/call-\d+$/.test(relative)) return undefined;
  return path.join(cgroupMount(), relative);
}

/** Where the cgroup v2 hierarchy is mounted. */
function cgroupMount(): string {
  for (const mount of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [before, after] = mount.split(' - ');
    if (after?.startsWith('cgroup2 ')) return before!.split(' ')[4]!;
  }
  return '/sys/fs/cgroup';
}

/** The cgroup folders AgentV process `pid` made (`agentv-<pid>-<random>`) that still exist. */
function cgroupFoldersOf(pid: number): string[] {
  const line = readFileSync('/proc/self/cgroup', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('0::'));
  if (line === undefined) return [];
  const own = path.join(cgroupMount(), line.slice(3));
  if (!existsSync(own)) return [];
  return readdirSync(own).filter((name) => name.startsWith(`agentv-${pid}-`));
}

/** The temp folders AgentV process `pid` made (see makeTempDir). */
function tempFoldersOf(pid: number, dir = tmpdir()): string[] {
  return readdirSync(dir)
    .filter((name) => new RegExp(`^agentv-[a-z-]+-${pid}-[A-Za-z0-9]{6}$`).test(name))
    .map((name) => path.join(dir, name));
}

/** Pids of the running processes whose parent is `parent`, with their command lines. */
function childrenOf(parent: number): { pid: number; args: string[] }[] {
  const found: { pid: number; args: string[] }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== parent) continue;
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      found.push({ pid: Number(entry), args });
    } catch {
      // Exited meanwhile.
    }
  }
  return found;
}

/** The pid of agentv's watchdog once it runs; undefined if agentv ends first. */
async function watchdogOf(agentv: ChildProcess): Promise<number | undefined> {
  const find = () =>
    childrenOf(agentv.pid!).find((child) => child.args.includes('agentv-watchdog'))?.pid;
  await until(() => find() !== undefined || agentv.exitCode !== null, 'the watchdog');
  return find();
}

function startEval(where: Project, args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, 'eval', 'evals/e.yaml', ...args], {
    cwd: where.dir,
    env: { ...process.env, CI: '1', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return { child, run: collectRun(child) };
}

const resultIds = (where: Project) =>
  parseJsonl(readFileSync(where.file('out.jsonl'), 'utf8')).map((line) => line.eval_id);

describe.skipIf(process.platform !== 'linux')('nothing outlives agentv', () => {
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)(
    '%s: exit 130, the finished case saved, every agent process stopped',
    async (signal) => {
      const where = await setUp(['quick', 'stuck']);
      const { child, run } = startEval(where, ['--out', 'out.jsonl', '--workers', '2']);
      await allStarted(where, 'stuck');
      await until(
        () => existsSync(where.file('out.jsonl')) && resultIds(where).includes('quick'),
        'the quick case',
      );
      if (cgroupsRequired) expect(cgroupOf(where, 'stuck')).toBeDefined();
      const stop = mustStop(where, 'stuck');
      child.kill(signal);
      const { code, stdout, stderr } = await run;
      expect(code).toBe(130);
      expect(stdout + stderr).toContain(`agentv: ${signal} received, stopping running cases`);
      expect(resultIds(where)).toEqual(['quick']);
      // The agents ignore SIGTERM: they were killed after the grace period, before agentv exited.
      expect(stop.filter(processAlive)).toEqual([]);
      expect(tempFoldersOf(child.pid!)).toEqual([]);
      expect(cgroupFoldersOf(child.pid!)).toEqual([]);
    },
    60_000,
  );

  it('SIGHUP stops agentv grade like SIGTERM: exit 130, the finished grade saved, the judge stopped', async () => {
    const where = await setUp(['quick', 'escape']);
    const recorded = await runAgentv(
      ['eval', 'evals/e.yaml', '--include-trace', '--out', 'run.jsonl'],
      where.dir,
    );
    expect(recorded.code).toBe(0);
    // The second case is now graded by a script that never answers and ignores SIGTERM.
    await writeFile(
      where.file('evals/judge.sh'),
      `echo $$ > ${where.file('pids/judge.leader')}\ntrap '' TERM\nsleep 1000 & wait\n`,
    );
    await writeFile(
      where.file('evals/e.yaml'),
      cases('quick') +
        `  - id: escape
    input_messages: [{ role: user, content: escape }]
    evaluators: [{ type: code_judge, script: sh judge.sh }]
`,
    );
    const child = spawn(
      process.execPath,
      [BIN, 'grade', 'run.jsonl', '--out', 'graded.jsonl', '--workers', '2'],
      { cwd: where.dir, env: { ...process.env, CI: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(child);
    const run = collectRun(child);
    await until(() => agentPids(where)['judge.leader'] !== undefined, 'the judge to start');
    await until(
      () =>
        existsSync(where.file('graded.jsonl')) &&
        readFileSync(where.file('graded.jsonl'), 'utf8').includes('quick'),
      'the quick grade',
    );
    const judge = agentPids(where)['judge.leader']!;
    child.kill('SIGHUP');
    const { code, stdout, stderr } = await run;
    expect(code).toBe(130);
    expect(stdout + stderr).toContain('agentv: SIGHUP received, stopping');
    const graded = parseJsonl(readFileSync(where.file('graded.jsonl'), 'utf8'));
    expect(graded.map((line) => line.eval_id)).toEqual(['quick']);
    expect(processAlive(judge)).toBe(false);
  }, 60_000);

  it('SIGHUP ends agentv eval --watch like Ctrl-C: during a pass with 130, while waiting with the last code', async () => {
    const running = await setUp(['quick', 'stuck']);
    const during = spawn(process.execPath, [BIN, 'eval', 'evals', '--watch'], {
      cwd: running.dir,
      env: { ...process.env, CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(during);
    const duringRun = collectRun(during);
    await allStarted(running, 'stuck');
    const stop = mustStop(running, 'stuck');
    during.kill('SIGHUP');
    expect((await duringRun).code).toBe(130);
    expect(stop.filter(processAlive)).toEqual([]);

    const waiting = await setUp(['quick']);
    const idle = spawn(process.execPath, [BIN, 'eval', 'evals', '--watch'], {
      cwd: waiting.dir,
      env: { ...process.env, CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(idle);
    let output = '';
    idle.stdout.on('data', (chunk) => {
      output += chunk;
    });
    const idleRun = collectRun(idle);
    await until(() => output.includes('agentv: watching'), 'the first pass');
    idle.kill('SIGHUP');
    expect((await idleRun).code).toBe(0);
  }, 60_000);

  it('a closed terminal stops the run: the finished case saved, every agent process stopped', async () => {
    const where = await setUp(['quick', 'stuck']);
    const terminal = spawnInTerminal(
      ['eval', 'evals/e.yaml', '--out', 'out.jsonl', '--workers', '2'],
      where.dir,
    );
    children.push(terminal);
    await allStarted(where, 'stuck');
    await until(
      () => existsSync(where.file('out.jsonl')) && resultIds(where).includes('quick'),
      'the quick case',
    );
    const agentv = childrenOf(terminal.pid!)[0]!.pid;
    const stop = mustStop(where, 'stuck');
    // The terminal goes away (its window closed, the SSH connection lost): agentv gets SIGHUP
    // and every later write to the terminal fails.
    terminal.kill('SIGKILL');
    await until(() => !processAlive(agentv), 'agentv to exit');
    expect(resultIds(where)).toEqual(['quick']);
    expect(stop.filter(processAlive)).toEqual([]);
    expect(tempFoldersOf(agentv)).toEqual([]);
  }, 60_000);

  it('kill -9: the watchdog stops every agent process and removes the call folders and cgroups', async () => {
    const where = await setUp(['stuck']);
    const { child, run } = startEval(where, ['--out', 'out.jsonl']);
    await allStarted(where, 'stuck');
    if (cgroupsRequired) expect(cgroupOf(where, 'stuck')).toBeDefined();
    const folder = readFileSync(where.file('pids/stuck.folder'), 'utf8').trim();
    expect(existsSync(folder)).toBe(true);
    const stop = mustStop(where, 'stuck');
    child.kill('SIGKILL');
    await run;
    // SIGTERM is ignored: SIGKILL follows after the grace period (2 s).
    await until(() => stop.every((pid) => !processAlive(pid)), 'the agents to be stopped');
    await until(() => tempFoldersOf(child.pid!).length === 0, 'the call folders to be removed');
    await until(() => cgroupFoldersOf(child.pid!).length === 0, 'the cgroups to be removed');
  }, 60_000);

  it('kill -9 without cgroups: the watchdog stops every process of the agents’ groups', async () => {
    const where = await setUp(['stuck']);
    const { child, run } = startEval(where, ['--out', 'out.jsonl'], { AGENTV_CGROUPS: '0' });
    await allStarted(where, 'stuck');
    expect(cgroupOf(where, 'stuck')).toBeUndefined();
    const stop = mustStop(where, 'stuck');
    expect(stop).toHaveLength(3);
    child.kill('SIGKILL');
    await run;
    await until(() => stop.every((pid) => !processAlive(pid)), 'the agents to be stopped');
    await until(() => tempFoldersOf(child.pid!).length === 0, 'the call folders to be removed');
  }, 60_000);

  it('the next run removes what a killed run and its killed watchdog left', async () => {
    const where = await setUp(['stuck']);
    // A temp folder of these runs' own: any other AgentV run starting meanwhile (a test file
    // running beside this one) would sweep the killed run's folders before they are counted.
    const tmp = where.file('tmp');
    mkdirSync(tmp);
    const { child, run } = startEval(where, ['--out', 'out.jsonl'], { TMPDIR: tmp });
    await allStarted(where, 'stuck');
    const inCgroup = cgroupOf(where, 'stuck') !== undefined;
    if (cgroupsRequired) expect(inCgroup).toBe(true);
    const stop = mustStop(where, 'stuck');
    const watchdog = await watchdogOf(child);
    process.kill(watchdog!, 'SIGKILL');
    child.kill('SIGKILL');
    await run;
    await until(() => !processAlive(watchdog!), 'the watchdog to die');
    const folders = tempFoldersOf(child.pid!, tmp);
    // The call's folder; where calls enter cgroups, also that of the script that started the
    // run's first process in a shell already in its cgroup.
    expect(folders.map((folder) => path.basename(folder).split('-')[1]).sort()).toEqual(
      inCgroup ? ['cli', 'launch'] : ['cli'],
    );
    const cgroups = cgroupFoldersOf(child.pid!);
    expect(cgroups).toHaveLength(inCgroup ? 1 : 0);
    // Without cgroups nothing can find those agents any more: the test stops them itself.
    if (!inCgroup) for (const pid of stop) killQuietly(pid);

    const next = await setUp(['quick']);
    const { code } = await runAgentv(['eval', 'evals/e.yaml', '--out', 'out.jsonl'], next.dir, {
      TMPDIR: tmp,
    });
    expect(code).toBe(0);
    await until(() => folders.every((folder) => !existsSync(folder)), 'the old folders to go');
    await until(() => stop.every((pid) => !processAlive(pid)), 'the old agents to be stopped');
    await until(() => cgroupFoldersOf(child.pid!).length === 0, 'the old cgroups to go');
  }, 60_000);

  it('stops a setsid escapee when its case ends and on timeout', async () => {
    // Only `stuck` is meant to time out: room for `escape`'s few process starts on a busy machine.
    const where = await setUp(['escape', 'stuck'], '    timeout_seconds: 6\n');
    const { code } = await runAgentv(['eval', 'evals/e.yaml', '--out', 'out.jsonl'], where.dir);
    expect(code).toBe(2);
    const results = parseJsonl(readFileSync(where.file('out.jsonl'), 'utf8'));
    expect(results.find((line) => line.eval_id === 'escape')?.passed).toBe(true);
    expect(results.find((line) => line.eval_id === 'stuck')?.error).toMatch(/timed out/);
    if (cgroupsRequired) {
      expect(cgroupOf(where, 'escape')).toBeDefined();
      expect(cgroupOf(where, 'stuck')).toBeDefined();
    }
    expect(mustStop(where, 'escape').filter(processAlive)).toEqual([]);
    expect(mustStop(where, 'stuck').filter(processAlive)).toEqual([]);
  }, 60_000);

  it('leaves nothing behind after a run: no call folder, no cgroup, no watchdog', async () => {
    const where = await setUp(['quick', 'escape']);
    const { child, run } = startEval(where, ['--out', 'out.jsonl']);
    const watchdog = await watchdogOf(child);
    const { code } = await run;
    expect(code).toBe(0);
    expect(tempFoldersOf(child.pid!)).toEqual([]);
    await until(() => cgroupFoldersOf(child.pid!).length === 0, 'the cgroups to be removed');
    if (watchdog !== undefined) await until(() => !processAlive(watchdog), 'the watchdog to exit');
  }, 60_000);

  describe('through the spawn helper (runs of more than a few cases)', () => {
    // One after another, 7.2 s: time enough for the helper to start before the last case, also
    // on a busy machine where starting Node takes a second or two.
    const slow = Array.from({ length: 24 }, (_, index) => `slow${index}`);
    /** Pids of the spawn helpers of agentv process `owner` (`node -e <script> <owner> <grace>`). */
    const helpersOf = (owner: number): number[] => {
      const found: number[] = [];
      for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
          const isHelper = args[1] === '-e' && args[2]?.includes('live.add');
          if (isHelper && args[3] === String(owner)) found.push(Number(entry));
        } catch {
          // Exited meanwhile.
        }
      }
      return found;
    };
    const parentOf = (pid: number) => {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    };
    /** The first ancestor of `pid` that is not a shell. */
    const startedBy = (pid: number): number => {
      let ancestor = parentOf(pid);
      while (readFileSync(`/proc/${ancestor}/comm`, 'utf8').trim().endsWith('sh')) {
        ancestor = parentOf(ancestor);
      }
      return ancestor;
    };
    /** A run whose last case is stuck, started by the helper (asserted). */
    const stuckThroughHelper = async () => {
      const where = await setUp([...slow, 'stuck']);
      const { child, run } = startEval(where, ['--out', 'out.jsonl', '--workers', '1'], {
        AGENTV_SPAWN_HELPER: '1',
      });
      await allStarted(where, 'stuck');
      const [helper] = helpersOf(child.pid!);
      expect(helper).toBeDefined();
      // The stuck agent (under the shell of its command line) was started by the helper.
      expect(startedBy(agentPids(where)['stuck.leader']!)).toBe(helper);
      return { child, run, helper: helper!, stop: mustStop(where, 'stuck') };
    };

    it('kill -9: every agent process is stopped and the helper exits', async () => {
      const { child, run, helper, stop } = await stuckThroughHelper();
      child.kill('SIGKILL');
      await run;
      await until(() => stop.every((pid) => !processAlive(pid)), 'the agents to be stopped');
      await until(() => !processAlive(helper), 'the helper to exit');
      await until(() => tempFoldersOf(child.pid!).length === 0, 'the call folders to be removed');
    }, 60_000);

    it('Ctrl-C stops what the helper started, and the helper exits', async () => {
      const { child, run, helper, stop } = await stuckThroughHelper();
      child.kill('SIGINT');
      expect((await run).code).toBe(130);
      expect(stop.filter(processAlive)).toEqual([]);
      await until(() => !processAlive(helper), 'the helper to exit');
    }, 60_000);

    it('a run with the helper leaves nothing behind', async () => {
      const where = await setUp([...slow, 'escape']);
      const { child, run } = startEval(where, ['--out', 'out.jsonl', '--workers', '2'], {
        AGENTV_SPAWN_HELPER: '1',
      });
      await until(() => helpersOf(child.pid!).length > 0, 'the helper to start');
      const { code } = await run;
      expect(code).toBe(0);
      expect(resultIds(where)).toHaveLength(slow.length + 1);
      expect(mustStop(where, 'escape').filter(processAlive)).toEqual([]);
      expect(tempFoldersOf(child.pid!)).toEqual([]);
      await until(() => helpersOf(child.pid!).length === 0, 'the helper to exit');
    }, 60_000);
  });

  it('prints no MaxListenersExceededWarning with 64 workers', async () => {
    const project = await createProject({
      '.agentv/targets.yaml': `targets:
  - name: default
    provider: cli
    command_template: echo done {EVAL_ID}
`,
      'evals/e.yaml': cases(...Array.from({ length: 200 }, (_, index) => `case-${index}`)),
    });
    projects.push(project);
    const { code, stderr } = await runAgentv(
      ['eval', 'evals/e.yaml', '--out', 'out.jsonl', '--workers', '64'],
      project.dir,
    );
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/\(node:\d+\) \w*Warning/);
  }, 120_000);
});
