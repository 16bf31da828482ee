import {
  computeRunStatistics,
  type PlannedCase,
  type RunOutcome,
  type RunPlan,
  type RunStatistics,
} from '@agentv/core';
import { displayPath, type ResultTally, type RunBudget } from '@agentv/core/internal';
import { formatSummary, terminalText } from '@agentv/results';
import { ExitCode } from '../exit-code.js';
import { useColor } from '../use-color.js';
import { type KeptWorkspace, writeKeptWorkspaces } from './kept-workspaces.js';
import type { OpenedRun } from './open-run.js';
import { type RepeatSettings, writeRepeatSummary } from './repeat.js';
import type { ReportFlags } from './report-flags.js';
import { notRunCases } from './resume.js';
import { writeFailureError } from './write-failure.js';

/** What `finishRun` reports on: the run as opened and planned, and what it kept. */
export interface FinishRunOptions {
  /** The cases of this run (of this shard), those `--resume` found finished included. */
  plan: RunPlan;
  opened: OpenedRun;
  outcome: RunOutcome;
  tally: ResultTally;
  retain: boolean | 'none';
  repeat: RepeatSettings;
  failOnFlaky: boolean;
  /** `--out`, to say what replaces it in the command to resume with. */
  out: string | undefined;
  flags: ReportFlags;
  cwd: string;
  keyOf: (planned: PlannedCase) => string;
  evalFileName: (absolutePath: string) => string;
  /** `--budget-usd` and what the run spent against it. */
  budget?: RunBudget;
  /** Workspaces the run kept, as they were kept: listed at the end. */
  keptWorkspaces?: readonly KeptWorkspace[];
}

/**
 * After the run: prints the summary (and the repeats' flaky cases), throws when the result
 * file could not be written (saying how to finish the run), says which cases an interrupt
 * left out, writes the reports, and gives the exit code.
 */
export async function finishRun(options: FinishRunOptions): Promise<ExitCode> {
  const { plan, opened, outcome, tally, retain, repeat, cwd } = options;
  const { outPath, resumed, artifacts } = opened;
  // Without reports, the tally kept only a summary of each result, or none (see retainResults).
  const finished = [...(resumed?.previous ?? []), ...tally.results];
  const statistics = retain === 'none' ? tally.statistics() : computeRunStatistics(finished);
  const notRun =
    retain !== 'none'
      ? notRunCases(plan.cases, finished, options.keyOf, options.evalFileName)
      : (outcome.unfinished ?? []).map((c) => ({
          evalFile: c.evalCase.filePath,
          dataset: c.evalCase.dataset,
          evalId: c.evalCase.id,
          target: c.target.name,
        }));
  process.stdout.write(`\n${formatSummary(statistics, { color: useColor(process.stdout) })}\n`);
  const flaky = repeat.count > 1 ? writeRepeatSummary(finished, repeat, process.stdout) : 0;
  if (artifacts.failure) {
    // Reports are not written: they are written when --resume completes the run.
    const previous = resumed?.previous.length ?? 0;
    const shown = displayPath(cwd, outPath);
    throw writeFailureError(artifacts.failure, {
      cwd,
      resultPath: outPath,
      finished: previous + outcome.finished,
      total: plan.cases.length,
      saved: previous + artifacts.saved,
      rerun: (notSaved) =>
        options.flags.outputFormat === 'yaml'
          ? 'run the same command again (a YAML result file cannot be resumed; JSONL can)'
          : `run the same command with --resume ${shown}${options.out === undefined ? '' : ' in place of --out'} to run the ${notSaved} ${notSaved === 1 ? 'case' : 'cases'} not saved`,
    });
  }
  if (outcome.budgetExhausted === true && options.budget !== undefined) {
    writeBudgetNotRun(options.budget, notRun, plan.cases.length, cwd, outPath);
  } else if (notRun.length > 0) {
    process.stdout.write(
      `interrupted: ${notRun.length} of ${plan.cases.length} cases did not run (finish them with --resume ${displayPath(cwd, outPath)})\n`,
    );
  }
  const written = await artifacts.finish(finished, { notRun, total: plan.cases.length });
  for (const line of written.lines) process.stdout.write(`${line}\n`);
  writeKeptWorkspaces(options.keptWorkspaces ?? [], process.stderr);
  if (written.error) throw written.error;
  if (outcome.interrupted) {
    process.stderr.write(
      `agentv: interrupted; ${outcome.finished} of ${opened.plan.cases.length} cases finished and ${outcome.finished === 1 ? 'was' : 'were'} written\n`,
    );
    return ExitCode.Interrupted;
  }
  if (outcome.budgetExhausted === true) return ExitCode.BudgetExhausted;
  if (notRun.length > 0) return ExitCode.Error;
  writeInfraOnly(statistics);
  if (statistics.errored > 0) return ExitCode.Error;
  if (statistics.failed > 0) return ExitCode.Failed;
  if (flaky > 0 && options.failOnFlaky) return ExitCode.Failed;
  return ExitCode.Passed;
}

/**
 * Says so when every failed or errored case failed for infrastructure (no spawn, network,
 * 5xx, container engine, full disk): the agent was not at fault, and running again may pass.
 */
function writeInfraOnly(statistics: RunStatistics): void {
  const failing = statistics.failed + statistics.errored;
  if (failing === 0 || statistics.failureClasses.infra !== failing) return;
  process.stderr.write(
    `agentv: only infrastructure failed: all ${failing} failing ${failing === 1 ? 'case' : 'cases'} could not reach or start what they needed (failure_class: infra), after retries; the agent was not at fault (hint: fix the service, network, container engine or disk, then run them again with --resume <result file> --retry-errors)\n`,
  );
}

/** Lists the cases `--budget-usd` left out, after what was spent against it. */
function writeBudgetNotRun(
  budget: RunBudget,
  notRun: readonly { evalId: string; target: string }[],
  total: number,
  cwd: string,
  outPath: string,
): void {
  process.stdout.write(
    `budget spent: $${budget.spentUsd.toFixed(4)} of --budget-usd $${budget.limitUsd}; ${notRun.length} of ${total} cases were not run:\n`,
  );
  for (const item of notRun.slice(0, 20)) {
    process.stdout.write(
      `  not run  ${terminalText(item.evalId)} (${terminalText(item.target)})\n`,
    );
  }
  if (notRun.length > 20) process.stdout.write(`  … and ${notRun.length - 20} more\n`);
  process.stdout.write(
    `(run them with --resume ${displayPath(cwd, outPath)} and a new --budget-usd)\n`,
  );
}
