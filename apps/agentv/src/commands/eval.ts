import path from 'node:path';
import {
  createEvaluatorRegistry,
  createMockProvider,
  defaultEvaluators,
  displayPath,
  type EvaluationResult,
  formatIssue,
  InvalidInputError,
  type Issue,
  loadProject,
  planRun,
  type runEvaluation,
  UsageError,
} from '@agentv/core';
import { computeRunStatistics, formatSummary, type RunRecord } from '@agentv/results';
import { defineCommand } from 'citty';
import { filterCasesById, filterCasesByTags } from '../eval/case-filter.js';
import { loadEvalFiles } from '../eval/load-eval-files.js';
import { createProgressDisplay } from '../eval/progress-display.js';
import { parseRepeatReducer, runEvaluationRepeated, writeRepeatSummary } from '../eval/repeat.js';
import { parseReportFlags, reportArgs } from '../eval/report-flags.js';
import { resolveEvalPaths } from '../eval/resolve-eval-paths.js';
import { casesToResume, checkResumeFlags, notRunCases, prepareResume } from '../eval/resume.js';
import { openRunArtifacts } from '../eval/run-artifacts.js';
import { caseKey, createEvalFileNamer, parseShard, runIdOf, shardOf } from '../eval/shard.js';
import { ExitCode } from '../exit-code.js';
import { createAppProviderRegistry } from '../registry.js';
import { useColor } from '../use-color.js';
import {
  integerFlag,
  numberFlag,
  rejectUnknownFlags,
  repeatedFlag,
  stringFlag,
  targetArgs,
  verboseArg,
} from './_shared.js';

const evalArgs = {
  paths: {
    type: 'positional',
    description: 'Eval files, directories or globs',
    required: true,
    valueHint: 'PATHS...',
  },
  ...targetArgs,
  out: {
    type: 'string',
    description: 'Result file (default: .agentv/results/eval_<timestamp>.jsonl, or .yaml)',
    valueHint: 'PATH',
  },
  workers: {
    type: 'string',
    description:
      "Cases run at once; wins over the targets' workers (default: their largest, else 4)",
    valueHint: 'N',
  },
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
  threshold: {
    type: 'string',
    description:
      'A case passes when its score is at least this (0..1), instead of every evaluator passing',
    valueHint: 'SCORE',
  },
  'include-trace': {
    type: 'boolean',
    description: 'Write the full trace and output messages into each result line',
  },
  'judge-target': {
    type: 'string',
    description:
      'Target that LLM graders (llm_judge, rubric) ask; wins over execution.judge_target and judge_target',
    valueHint: 'NAME',
  },
  'dry-run': {
    type: 'boolean',
    description: 'Answer every case with the mock provider instead of the real targets',
  },
  cache: {
    type: 'boolean',
    default: true,
    description:
      'Reuse LLM answers stored in .agentv/cache/ (--no-cache calls the model every time)',
  },
  ...reportArgs,
  ...verboseArg,
} as const;

export default defineCommand({
  meta: { name: 'eval', description: 'Run eval cases against their targets and grade the answers' },
  args: evalArgs,
  async run({ args, rawArgs }) {
    rejectUnknownFlags(rawArgs, evalArgs, 'eval');
    const cwd = process.cwd();
    const workers = integerFlag(args.workers, 'workers', 1);
    const maxRetries = integerFlag(args['max-retries'], 'max-retries', 0);
    const agentTimeout = numberFlag(args['agent-timeout'], 'agent-timeout', Number.MIN_VALUE);
    const threshold = numberFlag(args.threshold, 'threshold', 0, 1);
    const dryRun = args['dry-run'] === true;
    const repeat = {
      count: integerFlag(args.repeat, 'repeat', 1) ?? 1,
      reducer: parseRepeatReducer(stringFlag(args['repeat-reducer'], 'repeat-reducer')),
    };
    const verbose = args.verbose === true;
    const targetsPath = stringFlag(args.targets, 'targets');
    const targetOverride = stringFlag(args.target, 'target');
    const judgeTargetOverride = stringFlag(args['judge-target'], 'judge-target');
    const out = stringFlag(args.out, 'out');
    const resumePath = stringFlag(args.resume, 'resume');
    const retryErrors = args['retry-errors'] === true;
    checkResumeFlags(resumePath, retryErrors, out);

    const reportFlags = await parseReportFlags(args, rawArgs, cwd);
    const evalPaths = await resolveEvalPaths(reportFlags.evalInputs, cwd);
    const providerRegistry = createAppProviderRegistry();
    const project = await loadProject({
      cwd,
      providerRegistry,
      evalFiles: evalPaths,
      ...(targetsPath === undefined ? {} : { targetsFile: targetsPath }),
      mode: 'run',
      loadEvalFiles: (requests) => loadEvalFiles(requests),
    });
    const evaluatorRegistry = createEvaluatorRegistry(defaultEvaluators());
    const targetsFile = project.evalFiles[0]?.targetsFile;
    const targets = targetsFile === undefined ? [] : project.targets.get(targetsFile);

    const idPatterns = repeatedFlag(rawArgs, 'eval-id');
    const filterPatterns = repeatedFlag(rawArgs, 'filter');
    const includeTags = repeatedFlag(rawArgs, 'tag');
    const excludeTags = repeatedFlag(rawArgs, 'exclude-tag');
    const shardValue = stringFlag(args.shard, 'shard');
    const shard = shardValue === undefined ? undefined : parseShard(shardValue);
    const byId = filterCasesById(project.cases, idPatterns);
    const byFilter = filterCasesById(byId, filterPatterns);
    const selected = filterCasesByTags(byFilter, includeTags, excludeTags);
    const { plan: fullPlan, issues } = planRun({
      cases: selected,
      targets: targets ?? [],
      targetsFile: targetsFile && displayPath(cwd, targetsFile),
      targetOverride,
      ...(judgeTargetOverride === undefined ? {} : { judgeTargetOverride }),
      providerRegistry,
      evaluatorRegistry,
      dryRun,
      // A targets file with errors is already reported; "unknown target" on top would mislead.
      checkTargets: targets !== undefined,
    });
    reportIssues([...project.issues, ...issues], cwd);
    if (idPatterns.length > 0 && byId.length === 0 && project.cases.length > 0) {
      throw new UsageError(`no case id matches --eval-id ${idPatterns.join(', ')}`, {
        hint: `ids in these files include: ${project.cases
          .slice(0, 5)
          .map((c) => c.id)
          .join(', ')}`,
      });
    }
    if (filterPatterns.length > 0 && byFilter.length === 0 && project.cases.length > 0) {
      const also = idPatterns.length > 0 ? ` among the cases --eval-id selected` : '';
      throw new UsageError(`no case id matches --filter ${filterPatterns.join(', ')}${also}`, {
        hint: `ids in these files include: ${project.cases
          .slice(0, 5)
          .map((c) => c.id)
          .join(', ')}`,
      });
    }
    if (
      includeTags.length + excludeTags.length > 0 &&
      selected.length === 0 &&
      project.cases.length > 0
    ) {
      const known = [...new Set(project.cases.flatMap((c) => c.tags ?? []))];
      throw new UsageError(
        `no case is left after ${[
          ...includeTags.map((tag) => `--tag ${tag}`),
          ...excludeTags.map((tag) => `--exclude-tag ${tag}`),
        ].join(' ')}`,
        {
          hint:
            known.length > 0
              ? `tags in these files: ${known.slice(0, 10).join(', ')}`
              : 'no case has tags; add `tags: [smoke]` to a case or to the eval file',
        },
      );
    }

    // Selection comes first, then sharding: every shard sees the same selection and run id.
    const evalFileName = createEvalFileNamer(cwd);
    const run: RunRecord = {
      id: runIdOf(
        fullPlan.cases.map((c) =>
          caseKey(evalFileName(c.evalCase.filePath), c.evalCase.id, c.target.name),
        ),
      ),
      cases: fullPlan.cases.length,
      ...(shard === undefined ? {} : { shard: `${shard.index}/${shard.count}` }),
    };
    const plan =
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
      for (const c of plan.cases) {
        const tags = c.evalCase.tags?.length ? `  [${c.evalCase.tags.join(', ')}]` : '';
        process.stdout.write(
          `${displayPath(cwd, c.evalCase.filePath)}  ${c.evalCase.id}  ${c.target.name}${tags}\n`,
        );
      }
      const of = shard === undefined ? '' : ` (shard ${run.shard} of ${run.cases})`;
      process.stdout.write(`${plan.cases.length} case(s) selected${of}\n`);
      return ExitCode.Passed;
    }
    if (fullPlan.cases.length === 0) {
      throw new UsageError('the eval files contain no cases to run');
    }
    if (plan.cases.length === 0) {
      // An empty shard is normal for small runs: write an empty result file and pass.
      process.stderr.write(
        `agentv: shard ${run.shard} holds none of the ${run.cases} selected cases\n`,
      );
    }

    const outPath = path.resolve(
      cwd,
      resumePath ?? out ?? defaultResultPath(reportFlags.outputFormat),
    );
    const keyOf = (c: (typeof plan.cases)[number]) =>
      caseKey(evalFileName(c.evalCase.filePath), c.evalCase.id, c.target.name);
    const resumed =
      resumePath === undefined
        ? undefined
        : await prepareResume(outPath, run, cwd, (name) => {
            const match = plan.cases.find((c) => evalFileName(c.evalCase.filePath) === name);
            return match?.evalCase.filePath ?? path.resolve(cwd, name);
          });
    const runPlan =
      resumed === undefined
        ? plan
        : { ...plan, cases: casesToResume(plan.cases, resumed, retryErrors, keyOf) };
    const progress = createProgressDisplay({ total: runPlan.cases.length, stream: process.stdout });
    const artifacts = await openRunArtifacts({
      flags: reportFlags,
      outPath,
      append: resumed?.existed === true,
      includeTrace: args['include-trace'] === true,
      recordOptions: { evalFileName, run },
      cwd,
      warn: (message) => progress.log(`warning: ${message}`),
    });
    const controller = new AbortController();
    const stopOnSignal = (signal: NodeJS.Signals) => {
      if (controller.signal.aborted) process.exit(ExitCode.Interrupted);
      progress.log(`\nagentv: ${signal} received, stopping running cases (again to force)`);
      controller.abort(new Error(`run interrupted by ${signal}`));
    };
    process.on('SIGINT', stopOnSignal);
    process.on('SIGTERM', stopOnSignal);

    // Only the HTML and JUnit reports need whole results after the run; the summary needs
    // little of each, so large runs keep just that instead of every answer and trace.
    const reportsNeedResults = Boolean(reportFlags.junitPath || reportFlags.htmlPath);
    const summaries: EvaluationResult[] = [];
    let outcome: Awaited<ReturnType<typeof runEvaluation>>;
    try {
      outcome = await runEvaluationRepeated(
        {
          plan: runPlan,
          providerRegistry,
          evaluatorRegistry,
          workers,
          maxRetries,
          threshold,
          providerContext: {
            // `.env` reaches agents and judge scripts through this, not through process.env.
            env: project.env,
            verbose,
            defaultTimeoutSeconds: agentTimeout,
            log: (line) => progress.log(line),
            cacheDir: args.cache === false ? undefined : path.resolve(cwd, '.agentv', 'cache'),
          },
          createProvider: dryRun ? (target) => createMockProvider(target.name) : undefined,
          signal: controller.signal,
          onWarning: (message) => progress.log(`warning: ${message}`),
          // The prompt is built right before a case's provider call: the case is running from here.
          onPrompt: (evalCase, prompt, target) => {
            progress.onCaseStart(evalCase.id);
            return artifacts.onPrompt(evalCase, prompt, target);
          },
          onAttempt: artifacts.onAttempt,
          onResult: async (result) => {
            await artifacts.writer.write(result);
            progress.onResult(result);
            if (!reportsNeedResults) summaries.push(summaryOf(result));
          },
          retainResults: reportsNeedResults,
        },
        repeat,
      );
    } finally {
      progress.stop();
      process.off('SIGINT', stopOnSignal);
      process.off('SIGTERM', stopOnSignal);
      await artifacts.close();
    }

    const finished = [
      ...(resumed?.previous ?? []),
      ...(reportsNeedResults ? outcome.results : summaries),
    ];
    const statistics = computeRunStatistics(finished);
    const notRun = notRunCases(plan.cases, finished, keyOf, evalFileName);
    process.stdout.write(`\n${formatSummary(statistics, { color: useColor(process.stdout) })}\n`);
    const flaky = repeat.count > 1 ? writeRepeatSummary(finished, repeat, process.stdout) : 0;
    if (notRun.length > 0) {
      process.stdout.write(
        `interrupted: ${notRun.length} of ${plan.cases.length} cases did not run (finish them with --resume ${displayPath(cwd, outPath)})\n`,
      );
    }
    for (const line of await artifacts.finish(finished, { notRun, total: plan.cases.length })) {
      process.stdout.write(`${line}\n`);
    }
    if (outcome.interrupted) {
      process.stderr.write(
        `agentv: interrupted; ${outcome.finished} of ${runPlan.cases.length} cases finished and were written\n`,
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

/** What the end-of-run summary reads of a result, without its answer, trace and evaluator details. */
function summaryOf(result: EvaluationResult): EvaluationResult {
  return {
    ...result,
    candidateAnswer: '',
    hits: [],
    misses: result.misses.slice(0, 1),
    reasoning: result.passed ? '' : result.reasoning,
    evaluatorResults: [],
    trace: undefined,
    outputMessages: undefined,
  };
}

/** Prints warnings, and throws when any issue is an error so the run never starts. */
function reportIssues(issues: Issue[], cwd: string): void {
  const shown = issues.map((issue) =>
    issue.file === undefined ? issue : { ...issue, file: displayPath(cwd, issue.file) },
  );
  for (const warning of shown.filter((issue) => issue.severity === 'warning')) {
    process.stderr.write(`warning: ${formatIssue(warning)}\n`);
  }
  const errors = shown.filter((issue) => issue.severity === 'error');
  if (errors.length > 0) throw new InvalidInputError(errors);
}

function defaultResultPath(extension: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return path.join('.agentv', 'results', `eval_${stamp}.${extension}`);
}
