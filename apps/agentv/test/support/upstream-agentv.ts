import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  ensurePinnedCli,
  type PinnedCli,
} from '../../../../packages/provider-coding-agents/src/test-support/agent-cli.js';
import { type CliRun, collectRun, parseJsonl, runAgentv } from './project.js';

// Upstream AgentV (the `agentv` package on npm) run beside ours on the same project, and the
// outcome of each case read from both result files in one shape.

/** The upstream release this AgentV reads the `tests:` format of. */
export const UPSTREAM_AGENTV: PinnedCli = {
  npmPackage: 'agentv',
  version: '4.42.4',
  bin: 'agentv',
};

/** Bun, which upstream's examples run their agents and graders with (`bun run x.ts`). */
export const BUN: PinnedCli = { npmPackage: 'bun', version: '1.4.4', bin: 'bun' };

/** The pinned `agentv` and `bun` commands, installed into the agent cache the first time. */
export async function ensureUpstream(): Promise<{ agentv: string; bun: string } | undefined> {
  const agentv = await ensurePinnedCli(UPSTREAM_AGENTV);
  const bun = await ensurePinnedCli(BUN);
  return agentv && bun ? { agentv, bun } : undefined;
}

/**
 * The environment both AgentVs run in: no API keys or endpoints of the machine, `home` as HOME
 * (upstream keeps its config and caches there), `bun` on PATH, upstream's update check off.
 */
export function offlineEnv(home: string, bun: string): Record<string, string> {
  return {
    PATH: `${path.dirname(bun)}${path.delimiter}${process.env.PATH ?? ''}`,
    HOME: home,
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    NO_COLOR: '1',
    AGENTV_NO_UPDATE_CHECK: '1',
  };
}

/** `agentv eval run FILE --output DIR` of upstream in `cwd`, with exactly `env`. */
export function runUpstream(
  agentv: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<CliRun> {
  const child = spawn(process.execPath, [agentv, ...args], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collectRun(child);
}

/** Our `agentv` with exactly `env` (nothing of this process's environment added but its own). */
export function runOurs(args: string[], cwd: string, env: Record<string, string>): Promise<CliRun> {
  const cleared = Object.fromEntries(Object.keys(process.env).map((key) => [key, undefined]));
  return runAgentv(args, cwd, { ...cleared, ...env });
}

/** One case's outcome, as either AgentV reports it. */
export interface CaseOutcome {
  status: 'pass' | 'fail' | 'error';
  /** Rounded to 3 decimals. */
  score: number;
  /** Grader name → whether it passed (ours says `borderline` where upstream says `fail`). */
  graders: Record<string, boolean>;
}

const round = (score: number) => Math.round(score * 1000) / 1000;

/**
 * Upstream's run folder `index.jsonl`: one line per case with `test_id`, `score`,
 * `execution_status` (`ok` when the score reaches the threshold, `quality_failure`,
 * `execution_error`) and `scores` (`name`, `score`, `verdict` per grader).
 */
export async function upstreamOutcomes(runDir: string): Promise<Record<string, CaseOutcome>> {
  const lines = parseJsonl(await readFile(path.join(runDir, 'index.jsonl'), 'utf8'));
  const statuses = { ok: 'pass', quality_failure: 'fail', execution_error: 'error' } as const;
  return Object.fromEntries(
    lines.map((line) => [
      line.test_id,
      {
        status: statuses[line.execution_status as keyof typeof statuses],
        score: round(line.score),
        graders: Object.fromEntries(
          (line.scores ?? []).map((grader: { name: string; verdict: string }) => [
            grader.name,
            grader.verdict === 'pass',
          ]),
        ),
      },
    ]),
  );
}

/** Our results file: `eval_id`, `score`, `passed`, `error`, `evaluator_results`. */
export async function ourOutcomes(resultsFile: string): Promise<Record<string, CaseOutcome>> {
  const lines = parseJsonl(await readFile(resultsFile, 'utf8'));
  return Object.fromEntries(
    lines.map((line) => [
      line.eval_id,
      {
        status: line.error !== undefined ? 'error' : line.passed ? 'pass' : 'fail',
        score: round(line.score),
        graders: Object.fromEntries(
          (line.evaluator_results ?? []).map((grader: { name: string; verdict: string }) => [
            grader.name,
            grader.verdict === 'pass',
          ]),
        ),
      },
    ]),
  );
}
