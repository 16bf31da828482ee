import path from 'node:path';
import {
  createEvaluatorRegistry,
  defaultEvaluators,
  loadProject,
  type PlannedCase,
  planRun,
  type RunOutcome,
} from '@agentv/core';
import {
  CLI_OPTION_NAMES,
  createResultTally,
  prepareProcessStarts,
  reportIssues,
  runTargetsOf,
  UsageError,
} from '@agentv/core/internal';
import { createMockProvider } from '@agentv/core/test';
import { type CommandContext, defineCommand } from 'citty';
import { splitDryRun, writeDryRunWorkspaces } from '../eval/dry-run-workspaces.js';
import { chooseRepeat } from '../eval/file-repeat.js';
import { finishRun } from '../eval/finish-run.js';
import { heapFitterForDatasets, restoreHeapFlags } from '../eval/heap-tuning.js';
import { type KeptWorkspace, writeKeptWorkspaces } from '../eval/kept-workspaces.js';
import { listCases } from '../eval/list-cases.js';
import { loadEvalFiles } from '../eval/load-eval-files.js';
import { openRun } from '../eval/open-run.js';
import { openOtelExport } from '../eval/otel-export.js';
import { wantsLiveProgress } from '../eval/progress-display.js';
import { caseLabeler, failedAnswerLine } from '../eval/progress-lines.js';
import { outputRoot } from '../eval/project-root.js';
import { createRecordedTraceReader } from '../eval/recorded-trace-reader.js';
import {
  parseRepeatPass,
  parseRepeatReducer,
  type RepeatSettings,
  runEvaluationRepeated,
} from '../eval/repeat.js';
import { parseReportFlags, reportArgs } from '../eval/report-flags.js';
import { resolveEvalPaths } from '../eval/resolve-eval-paths.js';
import { checkResumeFlags } from '../eval/resume.js';
import { createRunConsole } from '../eval/run-console.js';
import { sandboxRuntimeFor } from '../eval/sandbox-runtime-for.js';
import { checkSelection, type SelectionFlags, selectCases } from '../eval/select-cases.js';
import { caseKey, createEvalFileNamer, parseShard } from '../eval/shard.js';
import { shardPlan } from '../eval/shard-plan.js';
import { traceIntakeFor } from '../eval/trace-intake-for.js';
import { watchEval } from '../eval/watch.js';
import { resolveWorkspaceRoot } from '../eval/workspace-root.js';
import { writesTranscripts } from '../eval/writes-transcripts.js';
import { ExitCode } from '../exit-code.js';
import { runExitCodes, withHelpEpilog } from '../help-epilog.js';
import { outsideWorkspaces, skippedYamlLine } from '../input-files/detect-file-kind.js';
import { createAppProviderRegistry } from '../registry.js';
import { readVersion } from '../version.js';
import {
  cacheArg,
  gradingVerboseArg,
  judgeTargetArg,
  outArg,
  targetArg,
  targetsArg,
  thresholdArg,
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
    description:
      "Run every case N times; its verdict follows from the repeats' verdicts (see --repeat-pass)",
    valueHint: 'N',
  },
  'repeat-pass': {
    type: 'string',
    description:
      "When a repeated case passes: all (default) of its repeats pass, any, majority, or rate>=X; wins over the cases' repeat_pass",
    valueHint: 'RULE',
  },
  'repeat-early-stop': {
    type: 'boolean',
    description: 'Stop repeating a case once its verdict cannot change',
  },
  'repeat-reducer': {
    type: 'string',
    description:
      "How --repeat reduces a case's scores to its score: mean (default), median, pass_at_k (highest), pass_all (lowest), majority (share passed)",
    valueHint: 'NAME',
  },
  'fail-on-flaky': {
    type: 'boolean',
    description: 'Exit 1 when a case passed in some repeats and failed in others',
  },
  'budget-usd': {
    type: 'string',
    description:
      'Stop starting cases once the run has spent this many US dollars (agent and judges); lists the cases not run and exits 3',
    valueHint: 'N',
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
    description:
      'Answer every case with the mock provider instead of the real targets; cases with a workspace are listed, not run',
  },
  ...cacheArg,
  watch: {
    type: 'boolean',
    description:
      'Run, then re-run the eval files a change affects (eval, targets, attached and grader files) until Ctrl-C',
  },
  'keep-workspaces': {
    type: 'boolean',
    description:
      "Keep every case's workspace, passing ones too (default: only failed and errored cases' are kept)",
  },
  'workspace-root': {
    type: 'string',
    description:
      'Folder to make workspaces in (default: the system temp folder); created when missing',
    valueHint: 'DIR',
  },
  'otel-file': {
    type: 'string',
    description: 'Write the run as OpenTelemetry traces (OTLP/JSON lines), one trace per case',
    valueHint: 'PATH',
  },
  'otel-endpoint': {
    type: 'string',
    description:
      'Send the run as OpenTelemetry traces to an OTLP/HTTP endpoint as cases finish (e.g. http://localhost:4318)',
    valueHint: 'URL',
  },
  'otel-header': {
    type: 'string',
    description:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder syntax users write
      'A header for --otel-endpoint, NAME=VALUE; the value may name variables as ${{ VAR }} (repeatable)',
    valueHint: 'NAME=VALUE',
  },
  ...reportArgs,
  ...gradingVerboseArg,
} as const;

const evalCommand = defineCommand({
  meta: { name: 'eval', description: 'Run eval cases against their targets and grade the answers' },
  args: evalArgs,
  plugins: [rejectUnknownFlags('eval')],
  async run(context) {
    try {
      return await runEval(context);
    } finally {
      restoreHeapFlags();
    }
  },
});

/** The eval command's run (see `evalCommand`). */
async function runEval(context: CommandContext<typeof evalArgs>) {
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
  const budgetUsd = numberFlag(
    args['budget-usd'],
    'budget-usd',
    Number.MIN_VALUE,
    Number.POSITIVE_INFINITY,
    'a positive number of US dollars',
  );
  const budget = budgetUsd === undefined ? undefined : { limitUsd: budgetUsd, spentUsd: 0 };
  const dryRun = args['dry-run'] === true;
  const repeatFlags = {
    count: integerFlag(args.repeat, 'repeat', 1),
    reducer: parseRepeatReducer(stringFlag(args['repeat-reducer'], 'repeat-reducer')),
    reducerGiven: args['repeat-reducer'] !== undefined,
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
  const keepWorkspaces = args['keep-workspaces'] === true;
  const workspaceRootFlag = stringFlag(args['workspace-root'], 'workspace-root');

  const reportFlags = await parseReportFlags(args, rawArgs, cwd);
  // Other tools' YAML files in the folders searched: named once the eval files are read.
  const skipped: string[] = [];
  const evalPaths = watchPass
    ? [...watchPass.evalFiles]
    : await resolveEvalPaths(reportFlags.evalInputs, cwd, (files) => skipped.push(...files));
  const idPatterns = repeatedFlag(rawArgs, 'eval-id');
  const filterPatterns = repeatedFlag(rawArgs, 'filter');
  const includeTags = repeatedFlag(rawArgs, 'tag');
  const excludeTags = repeatedFlag(rawArgs, 'exclude-tag');
  const shardValue = stringFlag(args.shard, 'shard');
  const shard = shardValue === undefined ? undefined : parseShard(shardValue);
  const evalFileName = createEvalFileNamer(cwd);
  const keyOf = (c: PlannedCase) =>
    caseKey(evalFileName(c.evalCase.filePath), c.evalCase.id, c.target.name);
  const selection: SelectionFlags = { idPatterns, filterPatterns, includeTags, excludeTags };
  const targetOverride = targetOverrides.length === 0 ? undefined : targetOverrides;
  const output = createRunConsole();

  // The watchdog and a shell for the run's first process start while the cases load (a
  // listing or a dry run starts none).
  if (args.list !== true && !dryRun) prepareProcessStarts();
  // Load the project, select its cases, plan the run: every file problem is reported at once.
  const providerRegistry = createAppProviderRegistry();
  const onDatasetSize = heapFitterForDatasets();
  const project = await loadProject({
    cwd,
    providerRegistry,
    evalFiles: evalPaths,
    ...(targetsPath === undefined ? {} : { targetsFile: targetsPath }),
    mode: 'run',
    loadEvalFiles: (requests) =>
      loadEvalFiles(
        requests.map((request) => ({
          ...request,
          options: { ...request.options, onDatasetSize },
        })),
      ),
    ...(targetOverride === undefined ? {} : { targetOverride }),
    optionNames: CLI_OPTION_NAMES,
  });
  const selected = selectCases(project.cases, selection);
  const evaluatorRegistry = createEvaluatorRegistry(defaultEvaluators());
  const { plan: fullPlan, issues } = planRun({
    cases: selected.cases,
    ...runTargetsOf(project, cwd),
    targetOverride,
    ...(judgeTargetOverride === undefined ? {} : { judgeTargetOverride }),
    providerRegistry,
    evaluatorRegistry,
    dryRun,
    optionNames: CLI_OPTION_NAMES,
  });
  reportIssues([...project.issues, ...issues], cwd, output.warn);
  const notEvalFiles = outsideWorkspaces(skipped, project.evalFiles);
  if (notEvalFiles.length > 0) output.note(skippedYamlLine(notEvalFiles, cwd));
  checkSelection(selected, fullPlan, selection);
  // --repeat, else the eval files' trials; the verdict rule follows the reducer chosen.
  const chosen = chooseRepeat(repeatFlags, fullPlan.cases);
  const repeatPass = parseRepeatPass(
    stringFlag(args['repeat-pass'], 'repeat-pass'),
    chosen.reducer,
  );
  const repeat: RepeatSettings = {
    count: chosen.count,
    reducer: chosen.reducer,
    ...(repeatPass === undefined ? {} : { pass: repeatPass }),
    ...(args['repeat-early-stop'] === true ? { earlyStop: true } : {}),
  };
  // Selection comes first, then sharding: every shard sees the same selection and run id.
  const sharded = shardPlan(fullPlan, shard, keyOf, evalFileName);
  const { run } = sharded;
  if (args.list === true) {
    listCases(sharded.plan, run, shard, cwd);
    return ExitCode.Passed;
  }
  const { plan, listed: dryRunListed } = dryRun
    ? splitDryRun(sharded.plan)
    : { plan: sharded.plan, listed: [] };
  writeDryRunWorkspaces(dryRunListed, cwd, process.stdout);
  if (dryRunListed.length > 0 && plan.cases.length === 0) return ExitCode.Passed;
  if (dryRun && plan.cases.length > 0) {
    // Its passes and failures are the eval file's against a fixed reply, not the agent's.
    process.stdout.write(
      'dry run: every target is replaced by a mock with a fixed reply; no agent or judge is called, so the scores check the eval file, not the agent\n',
    );
  }
  if (fullPlan.cases.length === 0) throw new UsageError('the eval files contain no cases to run');
  if (plan.cases.length === 0) {
    // An empty shard is normal for small runs: write an empty result file and pass.
    process.stderr.write(
      `agentv: shard ${run.shard} holds none of the ${run.cases} selected cases\n`,
    );
  }

  // Only the HTML and JUnit reports need whole results after the run; the summary needs
  // little of each, so large runs keep just that instead of every answer and trace. Without
  // reports, --resume or --repeat nothing per result is kept at all: the summary's figures
  // are added up as results arrive, and an interrupted run names its unfinished cases.
  const retain =
    reportFlags.junitPath || reportFlags.htmlPath
      ? true
      : resumePath !== undefined || repeat.count > 1
        ? false
        : 'none';
  const tally = createResultTally(retain);
  // Checked (and made) only for a run that has workspaces to put there.
  const workspaceRoot =
    workspaceRootFlag !== undefined && plan.cases.some((c) => c.evalCase.workspace)
      ? await resolveWorkspaceRoot(workspaceRootFlag, cwd)
      : undefined;
  const keptWorkspaces: KeptWorkspace[] = [];
  const otelFile = stringFlag(args['otel-file'], 'otel-file');
  const otel = await openOtelExport(
    {
      ...(otelFile === undefined ? {} : { file: path.resolve(cwd, otelFile) }),
      ...(args['otel-endpoint'] === undefined
        ? {}
        : { endpoint: stringFlag(args['otel-endpoint'], 'otel-endpoint')! }),
      headers: repeatedFlag(rawArgs, 'otel-header'),
    },
    project.env,
    { 'agentv.run_id': run.id },
    readVersion(),
  );
  const sandboxRuntime = await sandboxRuntimeFor(plan, project.env);
  const traceIntake = await traceIntakeFor(plan, project.env);
  const controller = new AbortController();
  const opened = await openRun({
    plan,
    run,
    cwd,
    flags: reportFlags,
    out,
    resumePath,
    retryErrors,
    repeatCount: repeat.count,
    includeTrace: args['include-trace'] === true,
    keyOf,
    evalFileName,
    console: output,
    controller,
  });
  const { artifacts } = opened;
  // With several targets each progress line names the case's target.
  const severalTargets = opened.plan.targets.length > 1;
  const label = caseLabeler(severalTargets);
  let outcome: RunOutcome;
  try {
    outcome = await runEvaluationRepeated(
      {
        plan: opened.plan,
        providerRegistry,
        evaluatorRegistry,
        workers,
        maxRetries,
        optionNames: CLI_OPTION_NAMES,
        threshold,
        providerContext: {
          env: project.env,
          verbose,
          defaultTimeoutSeconds: agentTimeout,
          log: output.log,
          cacheDir:
            args.cache === false ? undefined : path.join(outputRoot(cwd), '.agentv', 'cache'),
        },
        ...(dryRun ? { createProvider: (target) => createMockProvider(target.name) } : {}),
        signal: controller.signal,
        ...(budget === undefined ? {} : { budget }),
        onWarning: output.warn,
        // Only the live display (which shows running cases) and prompt dumps need each prompt.
        ...(reportFlags.promptDir === undefined && !wantsLiveProgress(process.stdout, process.env)
          ? {}
          : {
              onPrompt: (evalCase, prompt, target) => {
                // The prompt is built right before a case's provider call: the case is running from here.
                output.progress?.onCaseStart(label(evalCase.id, target.name));
                return artifacts.onPrompt(evalCase, prompt, target);
              },
            }),
        // Attempt records are dumped (--dump-traces) and carry coding agents' transcripts:
        // without either none is made.
        ...(reportFlags.traceDir === undefined && !opened.plan.targets.some(writesTranscripts)
          ? {}
          : { onAttempt: artifacts.onAttempt }),
        // A promise chain, not an async function: a batch reports thousands of results at once.
        onResult: (result) => {
          tally.add(result);
          return artifacts.save(result).then(() => {
            otel?.add(result);
            output.progress?.onResult(
              severalTargets ? { ...result, evalId: label(result.evalId, result.target) } : result,
            );
            // What the agent said is what a failed case is debugged from.
            if (verbose && result.error === undefined && !result.passed) {
              output.note(
                failedAnswerLine(label(result.evalId, result.target), result.candidateAnswer),
              );
            }
          });
        },
        retainResults: false,
        runId: run.id,
        ...(keepWorkspaces ? { keepWorkspaces } : {}),
        ...(workspaceRoot === undefined ? {} : { workspaceRoot }),
        onWorkspaceKept: (keptAt, result) =>
          keptWorkspaces.push({ path: keptAt, label: label(result.evalId, result.target) }),
        onWorkspaceChanges: artifacts.onWorkspaceChanges,
        ...(sandboxRuntime === undefined ? {} : { sandboxRuntime }),
        ...(traceIntake === undefined ? {} : { traceIntake }),
        recordedTraces: createRecordedTraceReader(cwd),
      },
      repeat,
    );
  } catch (error) {
    // A workspace that could not be set up (a failing before_all) stops the run: the
    // workspaces kept before it are listed all the same.
    writeKeptWorkspaces(keptWorkspaces, process.stderr);
    throw error;
  } finally {
    await opened.close();
    // Export failures are reported, never the run's outcome.
    for (const line of (await otel?.finish()) ?? []) output.warn(line);
  }
  return finishRun({
    plan,
    opened,
    outcome,
    tally,
    retain,
    repeat,
    failOnFlaky: args['fail-on-flaky'] === true,
    out,
    flags: reportFlags,
    cwd,
    keyOf,
    evalFileName,
    keptWorkspaces,
    ...(budget === undefined ? {} : { budget }),
  });
}

export default withHelpEpilog(evalCommand, runExitCodes('eval'));
