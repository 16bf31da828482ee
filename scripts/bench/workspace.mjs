// Budgets (a template of 5,000 files / 50 MB, medians of interleaved rounds, floors measured in the
// same run, on the same tree):
// - pooled: putting a workspace back to pristine between cases takes <= 30 ms, and <= 1.2x
//   `git reset --hard && git clean -fdx` on the same tree as a git repository;
// - temp: a fresh workspace per case takes <= 1.2x `cp -a` of the template;
// - pooled: no copy per case: the run folder's disk use stays flat over 1,000 cases (grows
//   < 1 MB from case 10 to case 1,000);
// - 1,000 cases with an empty template: the engine alone (acquire, changes, release) takes <= 2 ms
//   per case; and AgentV's own cost per case with workspaces is <= 2 ms over
//   the same run without them (needs `agentv eval` with `workspace:` support; until the built CLI
//   has it the figure is reported as skipped, not failed).
// The "agent" of each case edits like one: adds, modifies and deletes a few files, changes a mode.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createWorkspaceManager } from '../../packages/core/dist/internal.js';
import {
  evalAndVerify,
  evalYaml,
  interleaved,
  middle,
  ROUNDS,
  report,
  tempProject,
  timed,
} from './support.mjs';

const FILES = 5000;
const FILE_BYTES = 10_000;
const RESETS_PER_ROUND = 11;
const DISK_CASES = 1000;
const N = 1000;
const N_SMALL = 10;
const WORKERS = 4;

const scratch = mkdtempSync(path.join(tmpdir(), 'agentv-bench-workspace-'));

/** 5,000 files of 10 kB in 50 folders of 4 subfolders. */
function makeTemplate(dir) {
  let n = 0;
  for (let d = 0; d < 50; d++) {
    for (let s = 0; s < 4; s++) {
      const folder = path.join(dir, `d${d}`, `s${s}`);
      mkdirSync(folder, { recursive: true });
      for (let f = 0; f < FILES / 200; f++) {
        writeFileSync(path.join(folder, `f${f}.txt`), `${`line ${n++}\n`.repeat(FILE_BYTES / 10)}`);
      }
    }
  }
}

/** One case's edits. */
function agentEdits(dir, round) {
  writeFileSync(path.join(dir, `added-${round}.txt`), 'new\n');
  mkdirSync(path.join(dir, `new-folder-${round}`), { recursive: true });
  writeFileSync(path.join(dir, `new-folder-${round}`, 'x.txt'), 'x\n');
  for (let i = 0; i < 5; i++)
    writeFileSync(path.join(dir, `d${i}`, 's0', 'f0.txt'), `edit ${round}\n`);
  unlinkSync(path.join(dir, 'd9', 's1', 'f3.txt'));
  chmodSync(path.join(dir, 'd10', 's2', 'f4.txt'), 0o755);
}

function du(dir) {
  const result = spawnSync('du', ['-sk', dir], { encoding: 'utf8' });
  return Number(result.stdout.split('\t')[0]) * 1024;
}

let ok = true;
try {
  const template = path.join(scratch, 'template');
  makeTemplate(template);
  const repo = path.join(scratch, 'repo');
  spawnSync('cp', ['-a', template, repo]);
  const git = (...args) =>
    spawnSync('git', ['-c', 'user.email=b@e', '-c', 'user.name=b', ...args], { cwd: repo });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'template');

  const manager = createWorkspaceManager({
    root: path.join(scratch, 'root'),
    env: process.env,
    runId: 'bench',
  });
  const pooled = {
    template,
    isolation: 'per_case',
    mode: 'pooled',
    hooks: {},
    baseDir: scratch,
    key: 'pooled',
  };
  const temp = { ...pooled, mode: 'temp', key: 'temp' };
  const info = (id) => ({ evalId: `case-${id}`, evalFile: 'bench.eval.yaml', target: 'bench' });
  // Set up both configs and one pooled slot before measuring.
  await (await manager.acquire(pooled, info(0))).release({ keep: false });
  await (await manager.acquire(temp, info(0))).release({ keep: false });

  let caseNumber = 0;
  const figures = await interleaved({
    pooledReset: async () => {
      const times = [];
      for (let i = 0; i < RESETS_PER_ROUND; i++) {
        const lease = await manager.acquire(pooled, info(++caseNumber));
        agentEdits(lease.path, caseNumber);
        const started = performance.now();
        await lease.release({ keep: false });
        times.push(performance.now() - started);
      }
      return { ms: middle(times) };
    },
    gitReset: () => {
      const times = [];
      for (let i = 0; i < RESETS_PER_ROUND; i++) {
        agentEdits(repo, ++caseNumber);
        times.push(
          timed('/bin/sh', ['-c', 'git reset -q --hard && git clean -fdxq'], { cwd: repo }).ms,
        );
      }
      return { ms: middle(times) };
    },
    tempCopy: async () => {
      const started = performance.now();
      const lease = await manager.acquire(temp, info(++caseNumber));
      const ms = performance.now() - started;
      await lease.release({ keep: false });
      return { ms };
    },
    cpA: () => {
      const copy = path.join(scratch, 'cp-a-copy');
      const { ms } = timed('cp', ['-a', template, copy]);
      rmSync(copy, { recursive: true, force: true });
      return { ms };
    },
  });

  const reset = figures.pooledReset.ms;
  const floor = figures.gitReset.ms;
  console.log(
    `pooled reset ${reset.toFixed(1)} ms; git reset --hard && git clean -fdx ${floor.toFixed(1)} ms (medians of ${ROUNDS} rounds of ${RESETS_PER_ROUND})`,
  );
  ok =
    report(
      'workspace pooled reset (5,000 files / 50 MB)',
      reset.toFixed(1),
      'ms',
      '<= 30 ms',
      reset <= 30,
    ) && ok;
  ok =
    report(
      'workspace pooled reset / git reset --hard && git clean -fdx',
      (reset / floor).toFixed(2),
      'x',
      '<= 1.2x',
      reset / floor <= 1.2,
      { resetMs: reset, floorMs: floor },
    ) && ok;
  const copy = figures.tempCopy.ms;
  const cp = figures.cpA.ms;
  console.log(`temp workspace ${copy.toFixed(0)} ms; cp -a ${cp.toFixed(0)} ms`);
  ok =
    report(
      'workspace temp copy / cp -a',
      (copy / cp).toFixed(2),
      'x',
      '<= 1.2x',
      copy / cp <= 1.2,
      {
        copyMs: copy,
        cpMs: cp,
      },
    ) && ok;

  // Disk over 1,000 pooled cases, one worker: the same slot, put back each time.
  const runFolder = path.join(scratch, 'root');
  let diskAt10 = 0;
  for (let i = 1; i <= DISK_CASES; i++) {
    const lease = await manager.acquire(pooled, info(++caseNumber));
    agentEdits(lease.path, caseNumber);
    await lease.release({ keep: false });
    if (i === 10) diskAt10 = du(runFolder);
  }
  const growth = du(runFolder) - diskAt10;
  ok =
    report(
      `workspace disk growth over ${DISK_CASES} pooled cases`,
      (growth / 1024 / 1024).toFixed(2),
      'MB',
      '< 1 MB',
      growth < 1024 * 1024,
    ) && ok;
  await manager.close();

  ok = (await engineCost()) && ok;
  ok = perCaseOverhead() && ok;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exitCode = ok ? 0 : 1;

/**
 * The engine's own part of the per-case budget: acquire, changes and release of a pooled
 * workspace with an empty template, 1,000 cases, 4 at a time.
 */
async function engineCost() {
  const empty = path.join(scratch, 'empty-template');
  mkdirSync(empty, { recursive: true });
  const manager = createWorkspaceManager({ env: process.env, runId: 'bench-empty' });
  const config = {
    template: empty,
    isolation: 'per_case',
    mode: 'pooled',
    hooks: {},
    baseDir: scratch,
    key: 'empty',
  };
  const info = (id) => ({ evalId: `case-${id}`, evalFile: 'bench.eval.yaml', target: 'bench' });
  const runCases = async (count) => {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        while (next < count) {
          const lease = await manager.acquire(config, info(next++));
          writeFileSync(path.join(lease.path, 'answer.txt'), 'answer\n');
          await lease.changes();
          await lease.release({ keep: false });
        }
      }),
    );
    return performance.now() - started;
  };
  try {
    await runCases(WORKERS);
    const { cost } = await interleaved({ cost: async () => ({ ms: (await runCases(N)) / N }) });
    return report(
      `workspace engine per case, empty template (N=${N}, ${WORKERS} at a time: acquire, changes, release)`,
      cost.ms.toFixed(2),
      'ms',
      '<= 2 ms',
      cost.ms <= 2,
    );
  } finally {
    await manager.close();
  }
}

/** 1,000 cases with an empty template against the same cases without a workspace, through the CLI. */
function perCaseOverhead() {
  const files = (workspace) => ({
    'empty-template/.keep': '',
    '.agentv/targets.yaml':
      'targets:\n  - name: default\n    provider: cli\n    command_template: echo answer {EVAL_ID}\n',
    'evals/small.yaml': `${workspace}${evalYaml(N_SMALL)}`,
    'evals/large.yaml': `${workspace}${evalYaml(N)}`,
  });
  const block = 'workspace:\n  template: ../empty-template\n';
  const plain = tempProject(files(''));
  const withWorkspace = tempProject(files(block));
  try {
    let reason;
    try {
      evalAndVerify(withWorkspace.dir, 'small', N_SMALL, WORKERS);
      const first = JSON.parse(
        readFileSync(path.join(withWorkspace.dir, 'small.jsonl'), 'utf8').split('\n')[0],
      );
      if (first.workspace === undefined) reason = 'its result lines have no `workspace`';
    } catch (error) {
      reason = String(error.message).split('\n')[0];
    }
    if (reason !== undefined) {
      console.log(
        `skipped: 1,000 cases with an empty template: the built CLI does not run workspace: blocks yet (${reason})`,
      );
      return true;
    }
    const runs = [];
    for (let round = 0; round < ROUNDS; round++) {
      runs.push({
        plain:
          evalAndVerify(plain.dir, 'large', N, WORKERS).ms -
          evalAndVerify(plain.dir, 'small', N_SMALL, WORKERS).ms,
        workspace:
          evalAndVerify(withWorkspace.dir, 'large', N, WORKERS).ms -
          evalAndVerify(withWorkspace.dir, 'small', N_SMALL, WORKERS).ms,
      });
    }
    const overhead =
      (middle(runs.map((run) => run.workspace)) - middle(runs.map((run) => run.plain))) /
      (N - N_SMALL);
    return report(
      `workspace per-case cost, empty template (N=${N}, ${WORKERS} workers) over no workspace`,
      overhead.toFixed(2),
      'ms',
      '<= 2 ms',
      overhead <= 2,
    );
  } finally {
    plain.cleanup();
    withWorkspace.cleanup();
  }
}
