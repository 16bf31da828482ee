import { stat } from 'node:fs/promises';
import path from 'node:path';
import {
  computeRunStatistics,
  createEvaluatorRegistry,
  defaultEvaluators,
  type EvaluationResult,
  loadProject,
  type PlannedCase,
  type RunPlan,
  runEvaluation,
} from '@agentv/core';
import { CLI_OPTION_NAMES, displayPath, reportIssues, UsageError } from '@agentv/core/internal';
import { formatSummary, type ReadResultLine, type RunRecord, terminalText } from '@agentv/results';
import { defineCommand } from 'citty';
import { loadEvalFiles } from '../eval/load-eval-files.js';
import { createProgressDisplay } from '../eval/progress-display.js';
import { caseLabeler, failedAnswerLine } from '../eval/progress-lines.js';
import { outputRoot } from '../eval/project-root.js';
import { createRecordedTraceReader } from '../eval/recorded-trace-reader.js';
import { parseReportFlags, reportArgs } from '../eval/report-flags.js';
import { resolveEvalPaths } from '../eval/resolve-eval-paths.js';
import { lockResultFile } from '../eval/result-file-lock.js';
import { openRunArtifacts } from '../eval/run-artifacts.js';
import { defaultResultPath } from '../eval/run-output.js';
import { sandboxRuntimeFor } from '../eval/sandbox-runtime-for.js';
import { caseKey, createEvalFileNamer, runIdOf } from '../eval/shard.js';
import { describeWriteError, writeFailureError } from '../eval/write-failure.js';
import { ExitCode } from '../exit-code.js';
import { keptWorkspaceManager, samePath } from '../grade/kept-workspaces.js';
import { type GradePlan, NO_TRACE_HINT, planGrade } from '../grade/plan-grade.js';
import { planSessionGrade, type SessionGradePlan } from '../grade/plan-session-grade.js';
import { findRecordedEvalFiles } from '../grade/recorded-eval-files.js';
import { type RecordedAnswers, replayProviderFactory } from '../grade/replay-provider.js';
import { runExitCodes, withHelpEpilog } from '../help-epilog.js';
import { createAppProviderRegistry } from '../registry.js';
import { readResultLines } from '../results/read-result-lines.js';
import { onStopSignals } from '../stop-signals.js';
import { useColor } from '../use-color.js';
import {
  cacheArg,
  gradingVerboseArg,
  judgeTargetArg,
  outArg,
  targetsArg,
  thresholdArg,
  workersArg,
} from './_shared.js';
import { integerFlag, numberFlag, stringFlag } from './flag-values.js';
import { rejectUnknownFlags } from './reject-unknown-flags.js';

const gradeArgs = {
  paths: {
    type: 'positional',
    description:
      'The result file (JSONL, written with --include-trace), then optionally the eval files (default: those the result lines name)',
    // Checked by the command itself, with a message and an example in AgentV's words.
    required: false,
    valueHint: 'RESULTS [EVAL_FILES...]',
  },
  ...targetsArg,
  ...outArg,
  ...workersArg,
  ...thresholdArg,
  ...judgeTargetArg,
  ...cacheArg,
  workspace: {
    type: 'string',
    description:
      "Grade only the case whose workspace was kept at DIR (its line's workspace.kept_at), in that workspace",
    valueHint: 'DIR',
  },
  ...reportArgs,
  ...gradingVerboseArg,
} as const;

const RESULT_HINT = 'pass the JSONL result file of agentv eval --include-trace';

const gradeCommand = defineCommand({
  meta: {
    name: 'grade',
    description:
      "Grade a recorded run again with the eval files' current evaluators, without running any target",
  },
  args: gradeArgs,
  plugins: [rejectUnknownFlags('grade')],
  async run({ args, rawArgs }) {
    const cwd = process.cwd();
    const workers = integerFlag(args.workers, 'workers', 1);
    const threshold = numberFlag(args.threshold, 'threshold', 0, 1);
    const targetsPath = stringFlag(args.targets, 'targets');
    const judgeTargetOverride = stringFlag(args['judge-target'], 'judge-target');
    const out = stringFlag(args.out, 'out');
    const verbose = args.verbose === true;
    const [resultsArg, ...evalArgs] = args._;
    if (resultsArg === undefined) {
      throw new UsageError('grade needs the result file to grade', {
        hint: 'write agentv grade .agentv/results/eval_….jsonl [eval files], or agentv grade EVAL_FILE for cases whose trace: names a recorded session',
      });
    }
    // Without a result file, the eval files' cases that name a recorded session are graded.
    const sessions = await isEvalInput(path.resolve(cwd, resultsArg));
    const resultsPath = path.resolve(cwd, resultsArg);
    const shownResults = sessions ? 'the recorded sessions' : displayPath(cwd, resultsPath);
    const reportFlags = await parseReportFlags(
      { ...args, _: sessions ? args._ : evalArgs },
      rawArgs,
      cwd,
    );
    const outPath = path.resolve(
      cwd,
      out ?? defaultResultPath(reportFlags.outputFormat, cwd, 'grade'),
    );
    if (outPath === resultsPath) {
      throw new UsageError(`--out ${out} is the result file being graded`, {
        hint: 'write the new grades to another file; the recorded answers stay where they are',
      });
    }

    const workspaceFlag = stringFlag(args.workspace, 'workspace');
    if (sessions && workspaceFlag !== undefined) {
      throw new UsageError('--workspace grades a case of a result file, and none was given', {
        hint: 'write agentv grade results.jsonl --workspace DIR',
      });
    }
    const allLines = sessions ? [] : await readResultLines(resultsPath, cwd, RESULT_HINT);
    const lines =
      workspaceFlag === undefined
        ? allLines
        : linesKeptAt(allLines, path.resolve(cwd, workspaceFlag), shownResults);
    if (!sessions && lines.length === 0) {
      throw new UsageError(`${shownResults} holds no result lines`, { hint: RESULT_HINT });
    }
    if (!sessions && !lines.some(({ record }) => 'trace' in record)) {
      throw new UsageError(
        `${shownResults} was written without --include-trace: it holds no recorded traces to grade`,
        { hint: NO_TRACE_HINT },
      );
    }

    const evalFileName = createEvalFileNamer(cwd);
    let evalPaths: string[];
    const warnings: string[] = [];
    if (reportFlags.evalInputs.length > 0) {
      evalPaths = await resolveEvalPaths(reportFlags.evalInputs, cwd);
    } else {
      const recorded = findRecordedEvalFiles(lines, cwd, evalFileName);
      for (const name of recorded.missing) {
        warnings.push(`eval file ${name} named in ${shownResults} is not found from ${cwd}`);
      }
      if (recorded.found.length === 0) {
        throw new UsageError(
          `none of the eval files named in ${shownResults} is found (${recorded.missing.slice(0, 3).join(', ')})`,
          {
            hint: 'run agentv grade from the folder agentv eval ran in, or pass the eval files after the result file',
          },
        );
      }
      evalPaths = recorded.found;
    }

    // Filled once the plan has matched the recorded lines; providers read it when the run starts.
    const answers: RecordedAnswers = new Map();
    const providerRegistry = createAppProviderRegistry().register(replayProviderFactory(answers));
    const project = await loadProject({
      cwd,
      providerRegistry,
      evalFiles: evalPaths,
      ...(targetsPath === undefined ? {} : { targetsFile: targetsPath }),
      mode: 'run',
      loadEvalFiles: (requests) => loadEvalFiles(requests),
      optionNames: CLI_OPTION_NAMES,
    });
    const evaluatorRegistry = createEvaluatorRegistry(defaultEvaluators());
    const targetsFile = project.evalFiles[0]?.targetsFile;
    const grading = sessions
      ? sessionGrading(
          planSessionGrade({
            cases: project.cases,
            targets:
              (targetsFile === undefined ? undefined : project.targets.get(targetsFile)) ?? [],
            ...(targetsFile === undefined ? {} : { targetsFile: displayPath(cwd, targetsFile) }),
            ...(judgeTargetOverride === undefined ? {} : { judgeTargetOverride }),
            providerRegistry,
            evaluatorRegistry,
            cwd,
          }),
          evalFileName,
        )
      : planGrade({
          lines,
          cases: project.cases,
          evalFileNames: new Set(evalPaths.map(evalFileName)),
          evalFileName,
          targets: (targetsFile === undefined ? undefined : project.targets.get(targetsFile)) ?? [],
          ...(targetsFile === undefined ? {} : { targetsFile: displayPath(cwd, targetsFile) }),
          ...(judgeTargetOverride === undefined ? {} : { judgeTargetOverride }),
          providerRegistry,
          evaluatorRegistry,
          cwd,
        });
    reportIssues([...project.issues, ...grading.issues], cwd, (message) =>
      process.stderr.write(`warning: ${terminalText(message)}\n`),
    );
    for (const [target, byCase] of grading.answers) answers.set(target, byCase);
    if (sessions && grading.plan.cases.length === 0) {
      throw new UsageError(
        `no case of ${evalPaths.map((file) => displayPath(cwd, file)).join(', ')} names a recorded session`,
        {
          hint: 'give a case `trace: { source: codex-session, path: rollout.jsonl }` (or claude-session, otlp-file), or grade a result file: agentv grade results.jsonl',
        },
      );
    }
    if (!sessions && grading.otherFiles === lines.length) {
      throw new UsageError(`no line of ${shownResults} belongs to the eval files given`, {
        hint: 'result lines name their eval file in eval_file; pass those eval files, or none to use them',
      });
    }

    // Ids, files and targets come from the result file: one escaped line each.
    const warn = (line: string) => process.stderr.write(`warning: ${terminalText(line)}\n`);
    for (const line of warnings) warn(line);
    for (const missing of grading.ungraded) {
      if (missing.line === 0) {
        warn(`case "${missing.evalId}" (${missing.evalFile}) not graded: ${missing.reason}`);
        continue;
      }
      warn(
        `${shownResults}:${missing.line} case "${missing.evalId}" (${missing.evalFile}, target ${missing.target}) not graded: ${missing.reason}`,
      );
    }
    // With --workspace one case is graded on purpose: the others are not news.
    for (const extra of workspaceFlag === undefined ? grading.unrecorded : []) {
      warn(
        `case "${extra.evalId}" (${extra.evalFile}, target ${extra.target}) is not in ${shownResults}; run it with agentv eval`,
      );
    }
    if (grading.otherFiles > 0) {
      process.stderr.write(
        `note: ${grading.otherFiles} line(s) of ${shownResults} belong to other eval files and were skipped\n`,
      );
    }

    const recordedRun = lines[0]?.record.run;
    const run: RunRecord = recordedRun
      ? { id: recordedRun.id, cases: recordedRun.cases }
      : {
          id: runIdOf(
            sessions
              ? grading.plan.cases.map((c) =>
                  caseKey(evalFileName(c.evalCase.filePath), c.evalCase.id, c.target.name),
                )
              : [...grading.recorded.keys()],
          ),
          cases: sessions ? grading.plan.cases.length : grading.recorded.size,
        };
    const lock = await lockResultFile(outPath, cwd, (message) =>
      process.stderr.write(`note: ${message}\n`),
    );
    const controller = new AbortController();
    // With several targets each progress line names the case's target, as `eval`'s do.
    const severalTargets = grading.plan.targets.length > 1;
    const label = caseLabeler(severalTargets);
    const progress = createProgressDisplay({
      total: grading.plan.cases.length,
      stream: process.stdout,
    });
    const artifacts = await openRunArtifacts({
      flags: reportFlags,
      outPath,
      // New grades keep the answers and traces, so they can be graded again.
      includeTrace: true,
      recordOptions: { evalFileName, run, gradedFrom: shownResults },
      cwd,
      severalTargets,
      // As in agentv eval: nothing more is graded once a file cannot be written.
      onWriteFailure: (failure) => {
        progress.log(
          terminalText(
            `warning: could not write ${displayPath(cwd, failure.path)}: ${describeWriteError(failure.error)}; stopping`,
          ),
        );
        controller.abort(new Error('grading stopped: a file could not be written'));
      },
    }).catch((error: unknown) => {
      progress.stop();
      lock.release();
      throw error;
    });
    const stopOnSignal = (signal: NodeJS.Signals) => {
      if (controller.signal.aborted) process.exit(ExitCode.Interrupted);
      progress.log(`\nagentv: ${signal} received, stopping (again to force)`);
      controller.abort(new Error(`grading interrupted by ${signal}`));
    };
    const stopListening = onStopSignals(stopOnSignal);
    // Cases with a workspace are graded in the workspace their run kept (see keptWorkspaceManager);
    // a case whose run kept none (it passed) is graded without one, as the library would.
    const keptAtOf = (evalFile: string, evalId: string, target: string) => {
      const keptAt = grading.recorded.get(caseKey(evalFileName(evalFile), evalId, target))
        ?.workspace?.kept_at;
      return keptAt === undefined ? undefined : path.resolve(cwd, keptAt);
    };
    const plan: RunPlan = {
      ...grading.plan,
      cases: grading.plan.cases.map((planned): PlannedCase => {
        const { evalCase } = planned;
        // A session's case gets a fresh workspace, as agentv eval gives it.
        if (evalCase.workspace === undefined || sessions) return planned;
        if (keptAtOf(evalCase.filePath, evalCase.id, planned.target.name) !== undefined) {
          return planned;
        }
        const { workspace: _none, ...withoutWorkspace } = evalCase;
        return { ...planned, evalCase: withoutWorkspace };
      }),
    };
    const workspaces = plan.cases.some((c) => c.evalCase.workspace !== undefined && !sessions)
      ? await keptWorkspaceManager(resultsPath, (info) =>
          keptAtOf(info.evalFile, info.evalId, info.target),
        )
      : undefined;
    // Without kept workspaces, cases with docker: are graded in fresh containers, as eval runs them.
    const sandboxRuntime =
      workspaces === undefined ? await sandboxRuntimeFor(plan, project.env) : undefined;
    let outcome: Awaited<ReturnType<typeof runEvaluation>>;
    try {
      outcome = await runEvaluation({
        plan,
        providerRegistry,
        evaluatorRegistry,
        workers,
        // A replayed answer never fails; retries would only repeat it.
        maxRetries: 0,
        threshold,
        providerContext: {
          env: project.env,
          verbose,
          log: (line) => progress.log(terminalText(line)),
          cacheDir:
            args.cache === false ? undefined : path.join(outputRoot(cwd), '.agentv', 'cache'),
        },
        signal: controller.signal,
        recordedTraces: createRecordedTraceReader(cwd),
        onWarning: (message) => progress.log(`warning: ${terminalText(message)}`),
        onPrompt: (evalCase, prompt, target) => {
          progress.onCaseStart(label(evalCase.id, target.name));
          return artifacts.onPrompt(evalCase, prompt, target);
        },
        onAttempt: artifacts.onAttempt,
        onResult: async (result) => {
          const regraded = withRecordedAttempts(result, grading.recorded, evalFileName);
          await artifacts.save(regraded);
          progress.onResult(
            severalTargets
              ? { ...regraded, evalId: label(regraded.evalId, regraded.target) }
              : regraded,
          );
          if (verbose && regraded.error === undefined && !regraded.passed) {
            const shown = label(regraded.evalId, regraded.target);
            progress.log(failedAnswerLine(shown, regraded.candidateAnswer));
          }
        },
        retainResults: true,
        ...(workspaces === undefined ? {} : { workspaces }),
        ...(sandboxRuntime === undefined ? {} : { sandboxRuntime }),
      });
    } finally {
      progress.stop();
      stopListening();
      await artifacts.close();
      lock.release();
    }

    const results = outcome.results.map((result) =>
      withRecordedAttempts(result, grading.recorded, evalFileName),
    );
    const statistics = computeRunStatistics(results);
    process.stdout.write(`\n${formatSummary(statistics, { color: useColor(process.stdout) })}\n`);
    const notGraded = grading.ungraded.length;
    process.stdout.write(
      `${sessions ? 'Graded' : 'Re-graded'} ${results.length} recorded case(s) of ${shownResults} without running any target` +
        `${notGraded > 0 ? `; ${notGraded} not graded (see the warnings above)` : ''}` +
        `${grading.unrecorded.length > 0 ? `; ${grading.unrecorded.length} eval case(s) not in the result file` : ''}\n`,
    );
    if (artifacts.failure) {
      throw writeFailureError(artifacts.failure, {
        cwd,
        resultPath: outPath,
        finished: results.length,
        total: grading.plan.cases.length,
        saved: artifacts.saved,
        rerun: () => 'run the same agentv grade command again',
      });
    }
    const written = await artifacts.finish(results);
    for (const line of written.lines) process.stdout.write(`${line}\n`);
    if (written.error) throw written.error;
    if (outcome.interrupted) return ExitCode.Interrupted;
    if (notGraded > 0 || statistics.errored > 0) return ExitCode.Error;
    if (statistics.failed > 0) return ExitCode.Failed;
    return ExitCode.Passed;
  },
});

/** `--workspace DIR`: the lines whose case's workspace was kept at `dir` (one, unless repeated targets share it). */
function linesKeptAt(
  lines: readonly ReadResultLine[],
  dir: string,
  shownResults: string,
): ReadResultLine[] {
  const kept = lines.filter((line) => {
    const keptAt = line.record.workspace?.kept_at;
    return keptAt !== undefined && samePath(keptAt, dir);
  });
  if (kept.length > 0) return kept;
  const named = lines.filter((line) => line.record.workspace?.kept_at !== undefined).length;
  throw new UsageError(`no line of ${shownResults} names ${dir} as its kept workspace`, {
    hint:
      named === 0
        ? 'the run kept no workspace: failed and errored cases keep theirs, --keep-workspaces keeps every one'
        : `pass --workspace one of the ${named} paths listed at the end of agentv eval (workspace.kept_at of the case's line)`,
  });
}

/** The result with the recorded run's attempt count: grading replays the last attempt's answer. */
function withRecordedAttempts(
  result: EvaluationResult,
  recorded: ReadonlyMap<string, { attempts?: number }>,
  evalFileName: (absolutePath: string) => string,
): EvaluationResult {
  const attempts = recorded.get(
    caseKey(evalFileName(result.evalFile), result.evalId, result.target),
  )?.attempts;
  return attempts === undefined ? result : { ...result, attempts };
}

/** A session grading in the shape of a result file's: cases without a session are "not graded". */
function sessionGrading(
  planned: SessionGradePlan,
  evalFileName: (absolutePath: string) => string,
): GradePlan {
  return {
    plan: planned.plan,
    answers: new Map(),
    recorded: new Map(),
    ungraded: planned.withoutSession.map((evalCase) => ({
      evalFile: evalFileName(evalCase.filePath),
      evalId: evalCase.id,
      target: '',
      line: 0,
      reason: 'it names no recorded session (trace: { source, path }); run it with agentv eval',
    })),
    unrecorded: [],
    otherFiles: 0,
    issues: planned.issues,
  };
}

/** True for an eval file or folder of eval files (YAML), false for a result file. */
async function isEvalInput(file: string): Promise<boolean> {
  if (/\.ya?ml$/i.test(file)) return true;
  const info = await stat(file).catch(() => undefined);
  return info?.isDirectory() === true;
}

export default withHelpEpilog(gradeCommand, runExitCodes('grade'));
