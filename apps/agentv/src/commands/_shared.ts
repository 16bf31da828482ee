import type { ArgsDef } from 'citty';

// Flags more than one command takes, each defined once and spread into the `args` of every
// command that takes it, so its name, value hint and description cannot drift apart.

export const targetsArg = {
  targets: {
    type: 'string',
    description: 'Path of the targets file (default: found from the eval file upwards)',
    valueHint: 'PATH',
  },
} as const satisfies ArgsDef;

/** Repeatable: read every value with `repeatedFlag(rawArgs, 'target')`. */
export const targetArg = {
  target: {
    type: 'string',
    description:
      'Use this target for every case, overriding the eval files; repeat it (--target a --target b) for every case against each target',
    valueHint: 'NAME',
  },
} as const satisfies ArgsDef;

export const outArg = {
  out: {
    type: 'string',
    description: 'Result file (default: .agentv/results/<command>_<timestamp>.jsonl, or .yaml)',
    valueHint: 'PATH',
  },
} as const satisfies ArgsDef;

export const workersArg = {
  workers: {
    type: 'string',
    description:
      "Cases run at once; wins over the targets' workers (default: their largest, else 4)",
    valueHint: 'N',
  },
} as const satisfies ArgsDef;

export const thresholdArg = {
  threshold: {
    type: 'string',
    description:
      "A case passes when its score is at least this (0..1), over the file's execution.threshold; without either, when every grader passes (a tests: file's case: at 0.8)",
    valueHint: 'SCORE',
  },
} as const satisfies ArgsDef;

export const judgeTargetArg = {
  'judge-target': {
    type: 'string',
    description:
      'Target that LLM graders (llm_judge, rubric) ask; wins over execution.judge_target and judge_target',
    valueHint: 'NAME',
  },
} as const satisfies ArgsDef;

export const cacheArg = {
  cache: {
    // On unless --no-cache (read as `args.cache === false`); no `default`, which citty's help
    // would print as "(Default: true)" beside a flag nobody needs to pass.
    type: 'boolean',
    description: 'Reuse LLM answers stored in .agentv/cache/ (on unless --no-cache)',
    negativeDescription: 'Call the model every time, without reading or writing .agentv/cache/',
  },
} as const satisfies ArgsDef;

const verboseArg = {
  verbose: {
    type: 'boolean',
    description: 'Print the rendered command, cwd, duration and stderr of every call',
  },
} as const satisfies ArgsDef;

/** `--verbose` of the commands that grade: it also prints the answer of every failed case. */
export const gradingVerboseArg = {
  verbose: {
    ...verboseArg.verbose,
    description: `${verboseArg.verbose.description}, and the answer of every failed case`,
  },
} as const satisfies ArgsDef;
