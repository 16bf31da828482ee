import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CaseOutcome,
  ensureUpstream,
  offlineEnv,
  ourOutcomes,
  runOurs,
  runUpstream,
  upstreamOutcomes,
} from '../support/upstream-agentv.js';

/**
 * Acceptance: the offline projects (cli / mock targets, script graders) give the same outcome
 * per case under AgentV 4.42.4 (the `agentv` package from npm, installed once into the agent
 * cache) as here: pass / fail / error, the score, and each grader's pass or not. Both run offline
 * (no API keys, their own HOME, upstream's update check off), with `bun` from npm on PATH as
 * upstream's examples need. A case that differs must be listed below with its reason, and a
 * listed case must still differ, so the list stays what README says.
 */

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures');

/** Why a case differs; each reason is in README ("Coming from AgentV"). */
const REASONS = {
  suiteThreshold:
    "the file's `execution.threshold` decides each case here; AgentV 4.42.4 counts it in the summary and exit code but records each case at 0.8 (and holds `required: true` to 0.8)",
  exactCount:
    'tool_trajectory `exact` scores 0 when the number of calls differs; AgentV scores the matching positions',
  batchMissing:
    'a batch whose output misses a requested case fails every case of the batch; AgentV 4.x errors only the missing one',
  graderCrash:
    'a grader script that cannot run is an error of the case; AgentV 4.x scores that grader 0 (here: it imports @agentv/sdk, which upstream examples take from their monorepo)',
  codeGraderContract:
    'a code grader gets the code_judge payload and must print {score, hits, misses}; this 4.x script reads `config.fields` and prints 4.x `assertions`',
} as const;

type Reason = keyof typeof REASONS;

interface Project {
  /** The folder copied for the run (upstream's examples are in fixtures/upstream-4.42.4). */
  root: string;
  /** The eval file, relative to the root. */
  file: string;
  /** Case id → why it differs. */
  differs: Record<string, Reason>;
}

/** What is compared: our own project of every mapped grader, and the upstream examples that run offline. */
const PROJECTS: Project[] = [
  {
    root: 'upstream-compare',
    file: 'evals/graders.eval.yaml',
    differs: { 'trajectory-exact-miss': 'exactCount' },
  },
  {
    root: 'upstream-compare',
    file: 'evals/thresholds.eval.yaml',
    differs: {
      'three-of-five-passes': 'suiteThreshold',
      'required-true-at-threshold': 'suiteThreshold',
    },
  },
  {
    root: 'upstream-4.42.4',
    file: 'examples/features/execution-metrics/evals/dataset.eval.yaml',
    differs: { 'hybrid-evaluation': 'graderCrash' },
  },
  {
    root: 'upstream-4.42.4',
    file: 'examples/features/batch-cli/evals/dataset.eval.yaml',
    differs: {
      'aml-001': 'batchMissing',
      'aml-002': 'batchMissing',
      'aml-003': 'batchMissing',
    },
  },
  {
    root: 'upstream-4.42.4',
    file: 'examples/features/document-extraction/evals/confusion-metrics.eval.yaml',
    differs: {
      'metrics-001': 'codeGraderContract',
      'metrics-002': 'codeGraderContract',
      'metrics-003': 'codeGraderContract',
      'metrics-004': 'codeGraderContract',
      'metrics-005': 'codeGraderContract',
    },
  },
];

/**
 * Upstream's examples with a cli / mock target or script graders that are not run here, and why.
 * Every other example needs a model (LLM targets or graders).
 */
const NOT_RUN: Record<string, string> = {
  'examples/features/local-cli': 'its agent runs with `uv run` (Python packages from PyPI)',
  'examples/features/code-grader-sdk': "its agent is local-cli's, run with `uv run`",
  'examples/features/sdk-python': 'its grader runs with `uv run python`',
  'examples/showcase/export-screening':
    'its grader imports @agentv/sdk from the AgentV monorepo (`file:../../../packages/sdk`)',
  'examples/showcase/cross-repo-sync': 'its setup hook needs `tsx` installed in the example',
  'examples/features/sdk-eval-authoring': 'TypeScript eval files (`.eval.ts`) are not read here',
  'examples/features/tool-trajectory-simple':
    'refused here: per-call `args_match`, `subset` / `superset` modes (upstream-examples.test.ts)',
  'examples/features/tool-trajectory-advanced': 'refused here: per-call `max_duration_ms`',
  'examples/features/latency-assertions': 'refused here: per-call `max_duration_ms`',
  'examples/showcase/offline-grader-benchmark':
    "refused here: a grader's `target`, the threshold aggregator",
  'examples/features/document-extraction (field-accuracy.eval.yaml)':
    'refused here: field-accuracy',
  'examples/features/functional-grading':
    'refused here: {OUTPUT_FILE} inside a single-quoted shell script',
  'examples/features/file-changes':
    'refused here: {OUTPUT_FILE} inside a single-quoted shell script',
  'examples/features/file-changes-with-repos':
    'refused here: {OUTPUT_FILE} inside a single-quoted shell script',
  'examples/features/file-changes-graders':
    "refused here: {OUTPUT_FILE} inside a single-quoted shell script, a grader's `target`",
  'examples/features/workspace-artifact':
    'refused here: {OUTPUT_FILE} inside a single-quoted shell script',
};

let upstream: { agentv: string; bun: string } | undefined;
let scratch: string;

beforeAll(async () => {
  upstream = await ensureUpstream();
  scratch = await mkdtemp(path.join(tmpdir(), 'agentv-upstream-compare-'));
}, 900_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/**
 * Both AgentVs on a fresh copy of the project each: the outcome of every case. With `migrated`,
 * upstream runs the `agentv migrate` output of the file (written beside it as `migrated`).
 */
async function runBoth(project: Project, migrated?: string) {
  const { agentv, bun } = upstream!;
  const work = await mkdtemp(path.join(scratch, 'run-'));
  const env = offlineEnv(path.join(work, 'home'), bun);
  const ourCopy = path.join(work, 'ours');
  const theirCopy = path.join(work, 'theirs');
  await cp(path.join(FIXTURES, project.root), ourCopy, { recursive: true });
  await cp(path.join(FIXTURES, project.root), theirCopy, { recursive: true });
  let theirFile = project.file;
  if (migrated !== undefined) {
    const migration = await runOurs(['migrate', project.file], ourCopy, env);
    expect(migration.stderr).toBe('');
    theirFile = path.join(path.dirname(project.file), migrated);
    await writeFile(path.join(theirCopy, theirFile), migration.stdout);
  }
  const ourRun = await runOurs(
    ['eval', project.file, '--out', path.join(work, 'ours.jsonl')],
    ourCopy,
    env,
  );
  const theirRun = await runUpstream(
    agentv,
    ['eval', 'run', theirFile, '--output', path.join(work, 'theirs-run')],
    theirCopy,
    env,
  );
  const ours = await ourOutcomes(path.join(work, 'ours.jsonl')).catch((error) => {
    throw new Error(`no results of ours: ${error}\n${ourRun.stdout}\n${ourRun.stderr}`);
  });
  const theirs = await upstreamOutcomes(path.join(work, 'theirs-run')).catch((error) => {
    throw new Error(
      `no results of AgentV 4.42.4: ${error}\n${theirRun.stdout}\n${theirRun.stderr}`,
    );
  });
  return { ours, theirs };
}

/** The outcome compared: a case that errored has no grader verdicts to compare. */
const compared = (outcome: CaseOutcome | undefined) =>
  outcome?.status === 'error' ? { status: 'error', score: outcome.score } : outcome;

describe('AgentV 4.42.4 beside this AgentV, offline', () => {
  it('lists only examples the fixture has', () => {
    for (const example of Object.keys(NOT_RUN)) {
      expect(existsSync(path.join(FIXTURES, 'upstream-4.42.4', example.split(' ')[0]!))).toBe(true);
    }
  });

  it.for(PROJECTS.map((project) => [`${project.root}/${project.file}`, project] as const))(
    '%s: the same outcome per case, but for the listed differences',
    { timeout: 600_000 },
    async ([, project], context) => {
      // Not installable here, and neither CI nor AGENTV_REQUIRE_AGENTS is set.
      if (!upstream) return context.skip();
      const { ours, theirs } = await runBoth(project);
      expect(Object.keys(ours).sort()).toEqual(Object.keys(theirs).sort());
      const same: Record<string, unknown> = {};
      const expectedSame: Record<string, unknown> = {};
      for (const id of Object.keys(theirs)) {
        const reason = project.differs[id];
        if (reason === undefined) {
          same[id] = compared(ours[id]);
          expectedSame[id] = compared(theirs[id]);
        } else {
          // A listed difference must still be there; its reason is in README.
          expect(compared(ours[id]), `${id}: ${REASONS[reason]}`).not.toEqual(compared(theirs[id]));
        }
      }
      expect(same).toEqual(expectedSame);
    },
  );

  it('`agentv migrate` round trip: a 1.x file here and its migration under AgentV 4.42.4 give the same outcomes', {
    timeout: 600_000,
  }, async (context) => {
    if (!upstream) return context.skip();
    const project = { root: 'upstream-compare', file: 'evals/legacy.eval.yaml', differs: {} };
    const { ours, theirs } = await runBoth(project, 'migrated.eval.yaml');
    expect(Object.keys(ours).sort()).toEqual([
      'legacy-contains',
      'legacy-metrics',
      'legacy-regex-miss',
      'legacy-script',
      'legacy-trajectory',
    ]);
    expect(ours).toEqual(theirs);
  });
});
