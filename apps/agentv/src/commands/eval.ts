import path from 'node:path';
import {
  type AttemptRecord,
  computeRunStatistics,
  type EvalCase,
  type EvaluateOutcome,
  evaluate,
  type PlannedCase,
  type RunPlan,
} from '@agentv/core';
import { type BuiltPrompt, CLI_OPTION_NAMES, displayPath, UsageError } from '@agentv/core/internal';
import type { ResolvedTarget } from '@agentv/core/provider-utils';
import { formatSummary, type RunRecord, terminalText } from '@agentv/results';
import { defineCommand } from 'citty';
import { filterCasesById, filterCasesByTags } from '../eval/case-filter.js';
import { fitHeapToRun } from '../eval/heap-tuning.js';
import { loadEvalFiles } from '../eval/load-eval-files.js';
import { createProgressDisplay, wantsLiveProgress } from '../eval/progress-display.js';
import type { ProgressDisplay } from '../eval/progress-display-type.js';
import { parseRepeatReducer, runEvaluationRepeated, writeRepeatSummary } from '../eval/repeat.js';
import { parseReportFlags, reportArgs } from '../eval/report-flags.js';
import { resolveEvalPaths } from '../eval/resolve-eval-paths.js';
import { lockResultFile, type ResultFileLock } from '../eval/result-file-lock.js';
import { casesToResume, checkResumeFlags, notRunCases, prepareResume } from '../eval/resume.js';
import { openRunArtifacts } from '../eval/run-artifacts.js';
import { defaultResultPath } from '../eval/run-output.js';
import {
  caseKey,
  createEvalFileNamer,
  parseShard,
  runIdOf,
  type Shard,
  shardOf,
} from '../eval/shard.js';
import { watchEval } from '../eval/watch.js';
import { describeWriteError, type WriteFailure, writeFailureError } from '../eval/write-failure.js';
import { ExitCode } from '../exit-code.js';
import { createAppProviderRegistry } from '../registry.js';
import { onStopSignals } from '../stop-signals.js';
import { useColor } from '../use-color.js';
import {
  cacheArg,
  judgeTargetArg,
  outArg,
  targetArg,
  targetsArg,
  thresholdArg,
  verboseArg,
  workersArg,
} from './_shared.js';
import { integerFlag, numberFlag, repeatedFlag, stringFlag } from './flag-values.js';
import { rejectUnknownFlags } from './reject-unknown-flags.js';

const evalArgs = {
  paths: {
    type: 'positional',
    description: 'Eval files, directories or globs (default: evals/)',
    required: false,
    valueHint: 'PATHS...',
  },
  ...targetsArg,
  ...targetArg,
  ...outArg,
  ...workersArg,
  'eval-id': {
    type: 'string',
    description: 'Only run cases whose id matches; repeatable, * and ? wildcards',
    valueHint: 'ID',
  },
  filter: {
    type: 'string',
    description:
      'Only run cases whose id matches PATTERN (* and ? wildcards); with --eval-id, both must match',
    valueHint: 'PATTERN',
  },
  tag: {
    type: 'string',
    description: 'Only run cases with this tag; repeatable (a case needs any of them)',
    valueHint: 'TAG',
  },
  'exclude-tag': {
    type: 'string',
    description: 'Leave out cases with this tag; repeatable',
    valueHint: 'TAG',
  },
  shard: {
    type: 'string',
    description:
      'Run only shard i of n (1-based) of the selected cases; join the parts with agentv results merge',
    valueHint: 'i/n',
  },
  resume: {
    type: 'string',
    description:
      'Continue the interrupted run whose JSONL result file is PATH: append to it, skip finished cases, run errored ones again',
    valueHint: 'PATH',
  },
  'retry-errors': {
    type: 'boolean',
    description: 'With --resume: run again only the cases that errored',
  },
  list: {
    type: 'boolean',
    description: 'Print the selected cases (file, id, target, tags) without running them',
  },
  repeat: {
    type: 'string',
    description: 'Run every case N times and grade the aggregate (see --repeat-reducer)',
    valueHint: 'N',
  },
  'repeat-reducer': {
    type: 'string',
    description:
      'How --repeat aggregates a case: mean (default), median, pass_at_k, pass_all, majority',
    valueHint: 'NAME',
  },
  'fail-on-flaky': {
    type: 'boolean',
    description: 'Exit 1 when a case passed in some repeats and failed in others',
  },
  'max-retries': {
    type: 'string',
    description: "Retries of a failed agent call (default 2); wins over the target's max_retries",
    valueHint: 'N',
  },
  'agent-timeout': {
    type: 'string',
    description: "Timeout of one agent call; wins over the target's timeout_seconds",
    valueHint: 'SECONDS',
  },
  ...thresholdArg,
  'include-trace': {
    type: 'boolean',
    description: 'Write the full trace and output messages into each result line',
  },
  ...judgeTargetArg,
  'dry-run': {
    type: 'boolean',
    description: 'Answer every case with the mock provider instead of the real targets',
  },
  ...cacheArg,
  watch: {
    type: 'boolean',
    description:
      'Run, then re-run the eval files a change affects (eval, targets, attached and grader files) until Ctrl-C',
  },
  ...reportArgs,
  ...verboseArg,
} as const;

const evalCommand = defineCommand({
  meta: { name: 'eval', description: 'Run eval cases against their targets and grade the answers' },
  args: evalArgs,
  plugins: [rejectUnknownFlags('eval')],
  async run(context) {
    const { args, rawArgs } = context;
    // --watch seam (../eval/watch.ts): watchEval re-enters this run once per pass, with
    // `data.evalFiles` naming the eval files that pass runs instead of the command line's.
    const watchPass = context.data as { evalFiles: readonly string[] } | undefined;
    if (args.watch === true && watchPass === undefined) {
      return watchEval({
        args,
        rawArgs,
        cwd: process.cwd(),
        runPass: (evalFiles) => evalCommand.run!({ ...context, data: { evalFiles } }),
      });
    }
    const cwd = process.cwd();
    const workers = integerFlag(args.workers, 'workers', 1);
    const maxRetries = integerFlag(args['max-retries'], 'max-retries', 0);
    const agentTimeout = numberFlag(
      args['agent-timeout'],
      'agent-timeout',
      Number.MIN_VALUE,
      Number.POSITIVE_INFINITY,
      'a positive number of seconds',
    );
    const threshold = numberFlag(args.threshold, 'threshold', 0, 1);
    const dryRun = args['dry-run'] === true;
    const repeat = {
      count: integerFlag(args.repeat, 'repeat', 1) ?? 1,
      reducer: parseRepeatReducer(stringFlag(args['repeat-reducer'], 'repeat-reducer')),
    };
    const verbose = args.verbose === true;
    const targetsPath = stringFlag(args.targets, 'targets');
    // `--target a --target b` runs every case against each; citty keeps only the last.
    stringFlag(args.target, 'target');
    const targetOverrides = repeatedFlag(rawArgs, 'target');
    const judgeTargetOverride = stringFlag(args['judge-target'], 'judge-target');
    const out = stringFlag(args.out, 'out');
    const resumePath = stringFlag(args.resume, 'resume');
    const retryErrors = args['retry-errors'] === true;
    checkResumeFlags(resumePath, retryErrors, out);

    const reportFlags = await parseReportFlags(args, rawArgs, cwd);
    const evalPaths = watchPass
      ? [...watchPass.evalFiles]
      : await resolveEvalPaths(reportFlags.evalInputs, cwd);
    const idPatterns = repeatedFlag(rawArgs, 'eval-id');
    const filterPatterns = repeatedFlag(rawArgs, 'filter');
    const includeTags = repeatedFlag(rawArgs, 'tag');
    const excludeTags = repeatedFlag(rawArgs, 'exclude-tag');
    const shardValue = stringFlag(args.shard, 'shard');
    const shard = shardValue === undefined ? undefined : parseShard(shardValue);
    const evalFileName = createEvalFileNamer(cwd);
    const keyOf = (c: PlannedCase) =>
      caseKey(evalFileName(c.evalCase.filePath), c.evalCase.id, c.target.name);

    // What the CLI adds around evaluate(): filters, --shard, --list, --resume, result
    // files and reports, the progress display and signal handling.
    let allCases: EvalCase[] = [];
    let byId: EvalCase[] = [];
    let byFilter: EvalCase[] = [];
    let run: RunRecord | undefined;
    let plan: RunPlan | undefined;
    let outPath = '';
    let resumed: Awaited<ReturnType<typeof prepareResume>> | undefined;
    let progress: ProgressDisplay | undefined;
    let artifacts: Awaited<ReturnType<typeof openRunArtifacts>> | undefined;
    let lock: ResultFileLock | undefined;
    // Warnings and provider lines name cases and echo agents: one escaped line each.
    const warn = (message: string) =>
      progress
        ? progress.log(`warning: ${terminalText(message)}`)
        : process.stderr.write(`warning: ${terminalText(message)}\n`);
    const controller = new AbortController();
    const stopOnSignal = (signal: NodeJS.Signals) => {
      if (controller.signal.aborted) process.exit(ExitCode.Interrupted);
      progress?.log(`\nagentv: ${signal} received, stopping running cases (again to force)`);
      controller.abort(new Error(`run interrupted by ${signal}`));
    };
    // A file that cannot be written stops the run like Ctrl-C: nothing more is scheduled and
    // running cases are stopped, since what they produce could not be saved either.
    const stopOnWriteFailure = (failure: WriteFailure) => {
      const shown = displayPath(cwd, failure.path);
      const what = failure.kind === 'results' ? shown : `${failure.kind} to ${shown}`;
      const line = `agentv: could not write ${what}: ${describeWriteError(failure.error)}; stopping the run`;
      if (progress) progress.log(line);
      else process.stderr.write(`${line}\n`);
      controller.abort(new Error(`run stopped: could not write ${what}`));
    };
    let stopListening: (() => void) | undefined;
    // Only the HTML and JUnit reports need whole results after the run; the summary needs
    // little of each, so large runs keep just that instead of every answer and trace. Without
    // reports, --resume or --repeat nothing per result is kept at all: the summary's figures
    // are added up as results arrive, and an interrupted run names its unfinished cases.
    const reportsNeedResults = Boolean(reportFlags.junitPath || reportFlags.htmlPath);
    const retainResults = reportsNeedResults
      ? true
      : resumePath !== undefined || repeat.count > 1
        ? false
        : 'none';
    let listed = false;
    let severalTargets = false;

    let outcome: EvaluateOutcome;
    try {
      outcome = await evaluate({
        evalFiles: evalPaths,
        providers: createAppProviderRegistry(),
        cwd,
        ...(targetsPath === undefined ? {} : { targetsFile: targetsPath }),
        ...(targetOverrides.length === 0 ? {} : { targets: targetOverrides }),
        ...(judgeTargetOverride === undefined ? {} : { judgeTarget: judgeTargetOverride }),
        optionNames: CLI_OPTION_NAMES,
        workers,
        maxRetries,
        threshold,
        dryRun,
        signal: controller.signal,
        loadEvalFiles: (requests) => loadEvalFiles(requests),
        providerContext: {
          verbose,
          defaultTimeoutSeconds: agentTimeout,
          log: (line) =>
            progress
              ? progress.log(terminalText(line))
              : process.stderr.write(`${terminalText(line)}\n`),
          cacheDir: args.cache === false ? undefined : path.resolve(cwd, '.agentv', 'cache'),
        },
        onWarning: warn,
        selectCases: (cases) => {
          allCases = cases;
          byId = filterCasesById(cases, idPatterns);
          byFilter = filterCasesById(byId, filterPatterns);
          return filterCasesByTags(byFilter, includeTags, excludeTags);
        },
        onPlan: async (fullPlan) => {
          checkSelection(allCases, byId, byFilter, fullPlan, {
            idPatterns,
            filterPatterns,
            includeTags,
            excludeTags,
          });
          // Selection comes first, then sharding: every shard sees the same selection and run id.
          run = {
            id: runIdOf(fullPlan.cases.map(keyOf)),
            cases: fullPlan.cases.length,
            ...(shard === undefined ? {} : { shard: `${shard.index}/${shard.count}` }),
          };
          plan =
            shard === undefined
              ? fullPlan
              : {
                  ...fullPlan,
                  cases: fullPlan.cases.filter(
                    (c) =>
                      shardOf(evalFileName(c.evalCase.filePath), c.evalCase.id, shard.count) ===
                      shard.index,
                  ),
                };
          if (args.list === true) {
            listCases(plan, run, shard, cwd);
            listed = true;
            return 'stop';
          }
          if (fullPlan.cases.length > 0 && plan.cases.length === 0) {
            // An empty shard is normal for small runs: write an empty result file and pass.
            process.stderr.write(
              `agentv: shard ${run.shard} holds none of the ${run.cases} selected cases\n`,
            );
          }
          if (fullPlan.cases.length === 0) return plan; // evaluate() reports it
          return startRun(plan, run);
        },
        // Only the live display (which shows running cases) and prompt dumps need each prompt.
        ...(reportFlags.promptDir === undefined && !wantsLiveProgress(process.stdout, process.env)
          ? {}
          : {
              onPrompt: (evalCase: EvalCase, prompt: BuiltPrompt, target: ResolvedTarget) => {
                // The prompt is built right before a case's provider call: the case is running from here.
                progress?.onCaseStart(
                  severalTargets ? `${evalCase.id} [${target.name}]` : evalCase.id,
                );
                return artifacts?.onPrompt(evalCase, prompt, target);
              },
            }),
        // Attempt records are only dumped (--dump-traces): without it none is made.
        ...(reportFlags.traceDir === undefined
          ? {}
          : { onAttempt: (record: AttemptRecord) => artifacts?.onAttempt(record) }),
        onResult: async (result) => {
          await artifacts?.save(result);
          // With several targets each progress line names the target the case ran against.
          progress?.onResult(
            severalTargets ? { ...result, evalId: `${result.evalId} [${result.target}]` } : result,
          );
        },
        retainResults,
        runner: (options) => runEvaluationRepeated(options, repeat),
      });
    } finally {
      progress?.stop();
      stopListening?.();
      await artifacts?.close();
      lock?.release();
    }
    if (listed || plan === undefined || run === undefined) return ExitCode.Passed;

    /** Opens the result file, reports and progress display of the cases that will run. */
    async function startRun(selected: RunPlan, record: RunRecord): Promise<RunPlan> {
      outPath = path.resolve(cwd, resumePath ?? out ?? defaultResultPath(reportFlags.outputFormat));
      // Before the file is read: a second run on it (a second --resume) is refused from here on.
      lock = await lockResultFile(outPath, cwd, (message) =>
        process.stderr.write(`note: ${message}\n`),
      );
      resumed =
        resumePath === undefined
          ? undefined
          : await prepareResume(
              outPath,
              record,
              cwd,
              (name) => {
                const match = selected.cases.find(
                  (c) => evalFileName(c.evalCase.filePath) === name,
                );
                return match?.evalCase.filePath ?? path.resolve(cwd, name);
              },
              warn,
            );
      const runPlan =
        resumed === undefined
          ? selected
          : { ...selected, cases: casesToResume(selected.cases, resumed, retryErrors, keyOf) };
      severalTargets = runPlan.targets.length > 1;
      fitHeapToRun(runPlan.cases.length);
      progress = createProgressDisplay({ total: runPlan.cases.length, stream: process.stdout });
      artifacts = await openRunArtifacts({
        flags: reportFlags,
        outPath,
        append: resumed?.existed === true,
        includeTrace: args['include-trace'] === true,
        recordOptions: { evalFileName, run: record },
        cwd,
        severalTargets: selected.targets.length > 1,
        onWriteFailure: stopOnWriteFailure,
      });
      stopListening = onStopSignals(stopOnSignal);
      return runPlan;
    }

    // Without reports, evaluate() keeps only a summary of each result, or none (see retainResults).
    const finished = [...(resumed?.previous ?? []), ...outcome.results];
    const statistics = retainResults === 'none' ? outcome.summary : computeRunStatistics(finished);
    const notRun =
      retainResults !== 'none'
        ? notRunCases(plan.cases, finished, keyOf, evalFileName)
        : (outcome.unfinished ?? []).map((c) => ({
            evalFile: c.evalCase.filePath,
            dataset: c.evalCase.dataset,
            evalId: c.evalCase.id,
            target: c.target.name,
          }));
    process.stdout.write(`\n${formatSummary(statistics, { color: useColor(process.stdout) })}\n`);
    const flaky = repeat.count > 1 ? writeRepeatSummary(finished, repeat, process.stdout) : 0;
    const opened = artifacts as Awaited<ReturnType<typeof openRunArtifacts>>;
    if (opened.failure) {
      // Reports are not written: they are written when --resume completes the run.
      const previous = resumed?.previous.length ?? 0;
      const shown = displayPath(cwd, outPath);
      throw writeFailureError(opened.failure, {
        cwd,
        resultPath: outPath,
        finished: previous + outcome.finished,
        total: plan.cases.length,
        saved: previous + opened.saved,
        rerun: (notSaved) =>
          reportFlags.outputFormat === 'yaml'
            ? 'run the same command again (a YAML result file cannot be resumed; JSONL can)'
            : `run the same command with --resume ${shown}${out === undefined ? '' : ' in place of --out'} to run the ${notSaved} ${notSaved === 1 ? 'case' : 'cases'} not saved`,
      });
    }
    if (notRun.length > 0) {
      process.stdout.write(
        `interrupted: ${notRun.length} of ${plan.cases.length} cases did not run (finish them with --resume ${displayPath(cwd, outPath)})\n`,
      );
    }
    const written = await opened.finish(finished, { notRun, total: plan.cases.length });
    for (const line of written.lines) process.stdout.write(`${line}\n`);
    if (written.error) throw written.error;
    if (outcome.interrupted) {
      process.stderr.write(
        `agentv: interrupted; ${outcome.finished} of ${outcome.plan.cases.length} cases finished and were written\n`,
      );
      return ExitCode.Interrupted;
    }
    if (notRun.length > 0) return ExitCode.Error;
    if (statistics.errored > 0) return ExitCode.Error;
    if (statistics.failed > 0) return ExitCode.Failed;
    if (flaky > 0 && args['fail-on-flaky'] === true) return ExitCode.Failed;
    return ExitCode.Passed;
  },
});

export default evalCommand;

interface SelectionFlags {
  idPatterns: string[];
  filterPatterns: string[];
  includeTags: string[];
  excludeTags: string[];
}

/** Throws a usage error naming the flag when a filter left no case. */
function checkSelection(
  all: readonly EvalCase[],
  byId: readonly EvalCase[],
  byFilter: readonly EvalCase[],
  plan: RunPlan,
  flags: SelectionFlags,
): void {
  if (all.length === 0) return;
  const someIds = () =>
    `ids in these files include: ${all
      .slice(0, 5)
      .map((c) => c.id)
      .join(', ')}`;
  if (flags.idPatterns.length > 0 && byId.length === 0) {
    throw new UsageError(`no case id matches --eval-id ${flags.idPatterns.join(', ')}`, {
      hint: someIds(),
    });
  }
  if (flags.filterPatterns.length > 0 && byFilter.length === 0) {
    const also = flags.idPatterns.length > 0 ? ` among the cases --eval-id selected` : '';
    throw new UsageError(`no case id matches --filter ${flags.filterPatterns.join(', ')}${also}`, {
      hint: someIds(),
    });
  }
  if (flags.includeTags.length + flags.excludeTags.length > 0 && plan.cases.length === 0) {
    const known = [...new Set(all.flatMap((c) => c.tags ?? []))];
    throw new UsageError(
      `no case is left after ${[
        ...flags.includeTags.map((tag) => `--tag ${tag}`),
        ...flags.excludeTags.map((tag) => `--exclude-tag ${tag}`),
      ].join(' ')}`,
      {
        hint:
          known.length > 0
            ? `tags in these files: ${known.slice(0, 10).join(', ')}`
            : 'no case has tags; add `tags: [smoke]` to a case or to the eval file',
      },
    );
  }
}

/** `--list`: prints the selected cases (file, id, target, tags) and their count. */
function listCases(plan: RunPlan, run: RunRecord, shard: Shard | undefined, cwd: string): void {
  for (const c of plan.cases) {
    const tags = c.evalCase.tags?.length ? `  [${c.evalCase.tags.join(', ')}]` : '';
    process.stdout.write(
      `${terminalText(`${displayPath(cwd, c.evalCase.filePath)}  ${c.evalCase.id}  ${c.target.name}${tags}`)}\n`,
    );
  }
  const of = shard === undefined ? '' : ` (shard ${run.shard} of ${run.cases})`;
  process.stdout.write(`${plan.cases.length} case(s) selected${of}\n`);
}
