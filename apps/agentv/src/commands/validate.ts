import path from 'node:path';
import { createEvaluatorRegistry, defaultEvaluators } from '@agentv/core';
import { defineCommand } from 'citty';
import { withHelpEpilog } from '../help-epilog.js';
import { createAppProviderRegistry } from '../registry.js';
import { collectInputFiles } from '../validate/collect-input-files.js';
import { formatReport, paletteFor } from '../validate/format-report.js';
import { validateInputs } from '../validate/validate-inputs.js';
import { judgeTargetArg, targetArg, targetsArg } from './_shared.js';
import { repeatedFlag, stringFlag } from './flag-values.js';
import { rejectUnknownFlags } from './reject-unknown-flags.js';

/** Exit code when any file has errors (warnings alone exit 0; a bad command line exits 2). */
const HAS_ERRORS = 1;

const validateArgs = {
  paths: {
    type: 'positional',
    description:
      'Eval, targets and config files, directories (searched recursively) or globs (default: .)',
    required: false,
    valueHint: 'PATHS...',
  },
  ...targetsArg,
  ...targetArg,
  ...judgeTargetArg,
} as const;

const validateCommand = defineCommand({
  meta: {
    name: 'validate',
    description:
      'Check eval, targets and config files without running anything; exits 1 when any has errors',
  },
  args: validateArgs,
  plugins: [rejectUnknownFlags('validate')],
  async run({ args, rawArgs }) {
    const cwd = process.cwd();
    const inputs = args._.length > 0 ? args._ : ['.'];
    const { files, skipped } = await collectInputFiles(inputs, cwd);
    const targetsPath = stringFlag(args.targets, 'targets');
    const targets = repeatedFlag(rawArgs, 'target');
    const judgeTarget = stringFlag(args['judge-target'], 'judge-target');
    // The --targets file is checked first; `loadProject` throws when it does not exist.
    const targetsFile = targetsPath === undefined ? undefined : path.resolve(cwd, targetsPath);
    if (targetsFile !== undefined && !files.includes(targetsFile)) files.unshift(targetsFile);
    const report = await validateInputs(files, {
      cwd,
      providerRegistry: createAppProviderRegistry(),
      evaluatorRegistry: createEvaluatorRegistry(defaultEvaluators()),
      targetsFile: targetsPath,
      // Like eval, `--target a --target b` checks every case against each.
      ...(targets.length === 0 ? {} : { targetOverride: targets }),
      // As for eval: the judge of every LLM grader, and of cases without graders.
      ...(judgeTarget === undefined ? {} : { judgeTargetOverride: judgeTarget }),
      skipped,
    });
    const lines = formatReport(report, cwd, paletteFor(process.stdout));
    process.stdout.write(`${lines.join('\n')}\n`);
    return report.issues.some((issue) => issue.severity === 'error') ? HAS_ERRORS : 0;
  },
});

export default withHelpEpilog(
  validateCommand,
  [
    'EXIT CODES',
    '',
    '  0  no errors (warnings allowed)',
    '  1  errors',
    '  2  bad command line, or nothing to check',
  ].join('\n'),
);
