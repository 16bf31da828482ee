import path from 'node:path';
import { displayPath, UsageError } from '@agentv/core/internal';
import { compareRuns, DEFAULT_BOOTSTRAP_RESAMPLES, DEFAULT_BOOTSTRAP_SEED } from '@agentv/results';
import { defineCommand } from 'citty';
import { closeChoice } from '../close-choice.js';
import { type ComparisonFormat, formatComparison } from '../compare/format-comparison.js';
import { selectSides } from '../compare/select-sides.js';
import { ExitCode } from '../exit-code.js';
import { readResultLines } from '../results/read-result-lines.js';
import { integerFlag, stringFlag } from './flag-values.js';
import { rejectUnknownFlags } from './reject-unknown-flags.js';

const compareArgs = {
  files: {
    type: 'positional',
    description: 'The base and the new result file (JSONL), or one file with two targets',
    // Checked by the command itself, with a message and an example in AgentV's words.
    required: false,
    valueHint: 'BASE NEW',
  },
  'base-target': {
    type: 'string',
    description: 'Compare only this target of the base file (needed with one file)',
    valueHint: 'NAME',
  },
  'new-target': {
    type: 'string',
    description: 'Compare only this target of the new file (needed with one file)',
    valueHint: 'NAME',
  },
  format: {
    type: 'string',
    description: 'Output: table (default), json, or markdown (for a pull-request comment)',
    valueHint: 'table|json|markdown',
  },
  seed: {
    type: 'string',
    description: `Seed of the paired bootstrap (default ${DEFAULT_BOOTSTRAP_SEED})`,
    valueHint: 'N',
  },
  resamples: {
    type: 'string',
    description: `Paired bootstrap resamples (default ${DEFAULT_BOOTSTRAP_RESAMPLES})`,
    valueHint: 'N',
  },
  'fail-on-regression': {
    type: 'boolean',
    description: 'Exit 1 when a case that passed in the base fails in the new run',
  },
} as const;

const HINT = 'pass the JSONL result files agentv eval wrote: agentv compare base.jsonl new.jsonl';

export default defineCommand({
  meta: {
    name: 'compare',
    description:
      'Compare two runs case by case: wins, losses, regressions, pass-rate change with a 95% CI and McNemar',
  },
  args: compareArgs,
  plugins: [rejectUnknownFlags('compare')],
  async run({ args }) {
    const cwd = process.cwd();
    const format = formatOf(stringFlag(args.format, 'format'));
    const seed = integerFlag(args.seed, 'seed', 0) ?? DEFAULT_BOOTSTRAP_SEED;
    const resamples = integerFlag(args.resamples, 'resamples', 1) ?? DEFAULT_BOOTSTRAP_RESAMPLES;
    const baseTarget = stringFlag(args['base-target'], 'base-target');
    const newTarget = stringFlag(args['new-target'], 'new-target');
    const files = args._;
    if (files.length === 0 || files.length > 2) {
      throw new UsageError(`compare takes one or two result files, got ${files.length}`, {
        hint: 'write agentv compare base.jsonl new.jsonl, or agentv compare run.jsonl --base-target A --new-target B',
      });
    }
    const read = [];
    for (const file of files) {
      const absolute = path.resolve(cwd, file);
      read.push({
        file: displayPath(cwd, absolute),
        lines: await readResultLines(absolute, cwd, HINT),
      });
    }
    const { base, next, matchTarget } = selectSides(read, baseTarget, newTarget);
    const comparison = compareRuns(base.results, next.results, { matchTarget, seed, resamples });
    if (comparison.cases.length === 0) {
      throw new UsageError(`no case is in both ${base.file} and ${next.file}`, {
        hint: 'cases are matched by eval file (eval_file) and case id: compare two runs of the same eval files',
      });
    }
    process.stdout.write(formatComparison({ comparison, base, next }, format));
    if (args['fail-on-regression'] === true && comparison.regressions > 0) return ExitCode.Failed;
    return ExitCode.Passed;
  },
});

function formatOf(value: string | undefined): ComparisonFormat {
  if (value === undefined) return 'table';
  const format = value.toLowerCase();
  if (format === 'table' || format === 'json' || format === 'markdown') return format;
  throw new UsageError(`--format must be table, json or markdown, got "${value}"`, {
    hint: `${closeChoice(format, ['table', 'json', 'markdown'])}use --format markdown for a pull-request comment, json for scripts`,
  });
}
