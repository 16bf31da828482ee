import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { computeRunStatistics } from '@agentv/core';
import { displayPath, UsageError } from '@agentv/core/internal';
import {
  formatSummary,
  writeFileAtomically,
  writeHtmlReport,
  writeJunitReport,
} from '@agentv/results';
import { defineCommand } from 'citty';
import { reportArgs } from '../eval/report-flags.js';
import { describeWriteError } from '../eval/write-failure.js';
import { ExitCode } from '../exit-code.js';
import { mergeResultFiles } from '../results/merge-results.js';
import { useColor } from '../use-color.js';
import { stringFlag } from './flag-values.js';
import { rejectUnknownFlags } from './reject-unknown-flags.js';

const mergeArgs = {
  files: {
    type: 'positional',
    description: 'Result files (JSONL) of the shards or parts of one run',
    // Checked by the command itself, with a message and an example in AgentV's words.
    required: false,
    valueHint: 'FILES...',
  },
  out: {
    type: 'string',
    description: 'Where to write the joined result file (JSONL)',
    valueHint: 'PATH',
  },
  junit: reportArgs.junit,
  html: reportArgs.html,
} as const;

const merge = defineCommand({
  meta: {
    name: 'merge',
    description:
      'Join the result files of a sharded run, print its summary and exit with its exit code',
  },
  args: mergeArgs,
  plugins: [rejectUnknownFlags('results merge')],
  async run({ args }) {
    const cwd = process.cwd();
    const out = stringFlag(args.out, 'out');
    if (out === undefined) {
      throw new UsageError('results merge needs --out PATH', {
        hint: 'write e.g. agentv results merge shard-*.jsonl --out results.jsonl',
      });
    }
    const junit = stringFlag(args.junit, 'junit');
    const html = stringFlag(args.html, 'html');
    const files = args._.map((file) => path.resolve(cwd, file));
    if (files.length === 0) {
      throw new UsageError('results merge needs the result files to join', {
        hint: 'write e.g. agentv results merge shard-*.jsonl --out results.jsonl',
      });
    }
    const outPath = path.resolve(cwd, out);
    if (files.includes(outPath)) {
      throw new UsageError(`--out ${out} is also one of the files to merge`, {
        hint: 'write the merged file to a new path',
      });
    }
    const { records, results } = await mergeResultFiles(files, cwd);

    await writeReport(outPath, cwd, () =>
      writeFileAtomically(outPath, records.map((record) => `${JSON.stringify(record)}\n`).join('')),
    );
    const statistics = computeRunStatistics(results);
    const color = useColor(process.stdout);
    process.stdout.write(`\n${formatSummary(statistics, { color })}\n`);
    process.stdout.write(`Results: ${displayPath(cwd, outPath)}\n`);
    if (junit !== undefined) {
      const junitPath = path.resolve(cwd, junit);
      await writeReport(junitPath, cwd, () =>
        writeJunitReport(junitPath, results, { relativeTo: cwd }),
      );
      process.stdout.write(`JUnit: ${displayPath(cwd, junitPath)}\n`);
    }
    if (html !== undefined) {
      const htmlPath = path.resolve(cwd, html);
      await writeReport(htmlPath, cwd, () =>
        writeHtmlReport(htmlPath, results, {
          relativeTo: cwd,
          resultFile: displayPath(cwd, outPath),
        }),
      );
      process.stdout.write(`HTML report: ${displayPath(cwd, htmlPath)}\n`);
    }
    if (statistics.errored > 0) return ExitCode.Error;
    if (statistics.failed > 0) return ExitCode.Failed;
    return ExitCode.Passed;
  },
});

async function writeReport(
  filePath: string,
  cwd: string,
  write: () => Promise<unknown>,
): Promise<void> {
  try {
    await mkdir(path.dirname(filePath), { recursive: true });
    await write();
  } catch (error) {
    throw new UsageError(
      `cannot write ${displayPath(cwd, filePath)}: ${describeWriteError(error)}`,
      {
        hint: 'choose a path in a folder you can write to, on a disk with free space; a file already there is left as it was',
      },
    );
  }
}

export default defineCommand({
  meta: { name: 'results', description: 'Work with result files (merge the shards of a run)' },
  subCommands: { merge },
});
