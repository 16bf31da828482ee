import path from 'node:path';
import type { PlannedCase, RunPlan } from '@agentv/core';
import { displayPath } from '@agentv/core/internal';
import { type RunRecord, terminalText } from '@agentv/results';
import { ExitCode } from '../exit-code.js';
import { onStopSignals } from '../stop-signals.js';
import { fitHeapToRun } from './heap-tuning.js';
import { createProgressDisplay } from './progress-display.js';
import type { ReportFlags } from './report-flags.js';
import { lockResultFile } from './result-file-lock.js';
import { casesToResume, type ResumeState } from './resume.js';
import { openRunArtifacts, type RunArtifacts } from './run-artifacts.js';
import type { RunConsole } from './run-console.js';
import { defaultResultPath } from './run-output.js';
import { describeWriteError } from './write-failure.js';

/** What `openRun` needs: the planned part of the run and the flags about its files. */
export interface OpenRunOptions {
  /** The cases of this run (of this shard). */
  plan: RunPlan;
  run: RunRecord;
  cwd: string;
  flags: ReportFlags;
  out: string | undefined;
  resumePath: string | undefined;
  retryErrors: boolean;
  /** How many times each case runs (`--repeat`, or the eval files' trials). */
  repeatCount: number;
  includeTrace: boolean;
  keyOf: (planned: PlannedCase) => string;
  evalFileName: (absolutePath: string) => string;
  console: RunConsole;
  /** Aborted by a stop signal or a file that cannot be written. */
  controller: AbortController;
}

/** A run ready to start: its files open, its display shown, stop signals handled. */
export interface OpenedRun {
  /** Absolute path of the result file. */
  outPath: string;
  /** What `--resume` found in the result file. */
  resumed: ResumeState | undefined;
  /** The cases that run: the plan's, less those `--resume` found finished. */
  plan: RunPlan;
  artifacts: RunArtifacts;
  /** Stops the display and the signal handlers, closes the files and releases the lock. */
  close(): Promise<void>;
}

/**
 * Opens the result file (locked against a second run on it; under `--resume` read first,
 * and the finished cases left out of the plan), the reports and dumps, and the progress
 * display, then handles stop signals: the first stops the run like a write failure does,
 * a second ends AgentV at once.
 */
export async function openRun(options: OpenRunOptions): Promise<OpenedRun> {
  const { plan: selected, run, cwd, flags, resumePath, console: out, controller } = options;
  const outPath = path.resolve(
    cwd,
    resumePath ?? options.out ?? defaultResultPath(flags.outputFormat, cwd),
  );
  // Before the file is read: a second run on it (a second --resume) is refused from here on.
  const lock = await lockResultFile(outPath, cwd, (message) =>
    process.stderr.write(`note: ${message}\n`),
  );
  try {
    const resumed =
      resumePath === undefined
        ? undefined
        : await (await import('./prepare-resume.js')).prepareResume(
            outPath,
            run,
            cwd,
            (name) => {
              const match = selected.cases.find(
                (c) => options.evalFileName(c.evalCase.filePath) === name,
              );
              return match?.evalCase.filePath ?? path.resolve(cwd, name);
            },
            out.warn,
            options.repeatCount,
          );
    const plan =
      resumed === undefined
        ? selected
        : {
            ...selected,
            cases: casesToResume(selected.cases, resumed, options.retryErrors, options.keyOf),
          };
    if (resumed?.existed === true)
      process.stdout.write(
        resumingLine(outPath, cwd, selected.cases.length, plan.cases.length, options.retryErrors),
      );
    fitHeapToRun(plan.cases.length);
    out.progress = createProgressDisplay({ total: plan.cases.length, stream: process.stdout });
    const artifacts = await openRunArtifacts({
      flags,
      outPath,
      append: resumed?.existed === true,
      includeTrace: options.includeTrace,
      recordOptions: { evalFileName: options.evalFileName, run },
      cwd,
      severalTargets: selected.targets.length > 1,
      // A file that cannot be written stops the run like Ctrl-C: nothing more is scheduled and
      // running cases are stopped, since what they produce could not be saved either.
      onWriteFailure: (failure) => {
        const shown = displayPath(cwd, failure.path);
        const what = failure.kind === 'results' ? shown : `${failure.kind} to ${shown}`;
        out.note(
          `agentv: could not write ${what}: ${describeWriteError(failure.error)}; stopping the run`,
        );
        controller.abort(new Error(`run stopped: could not write ${what}`));
      },
    });
    const stopListening = onStopSignals((signal) => {
      if (controller.signal.aborted) process.exit(ExitCode.Interrupted);
      out.progress?.log(`\nagentv: ${signal} received, stopping running cases (again to force)`);
      controller.abort(new Error(`run interrupted by ${signal}`));
    });
    return {
      outPath,
      resumed,
      plan,
      artifacts,
      close: async () => {
        out.progress?.stop();
        stopListening();
        await artifacts.close();
        lock.release();
      },
    };
  } catch (error) {
    out.progress?.stop();
    lock.release();
    throw error;
  }
}

/** What `--resume` keeps of the file and what it runs, said before the run's progress. */
function resumingLine(
  outPath: string,
  cwd: string,
  total: number,
  toRun: number,
  retryErrors: boolean,
): string {
  const cases = (n: number) => `${n} case${n === 1 ? '' : 's'}`;
  const shown = terminalText(displayPath(cwd, outPath));
  if (retryErrors) {
    return `Resuming ${shown}: ${toRun === 0 ? 'no case' : cases(toRun)} with an error to run again\n`;
  }
  if (toRun === 0)
    return `Resuming ${shown}: all ${cases(total)} already have a result; nothing to run\n`;
  return `Resuming ${shown}: ${total - toRun} of ${cases(total)} already have a result; running ${toRun}\n`;
}
