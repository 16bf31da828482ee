import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '@agentv/core/internal';
import { defineCommand } from 'citty';
import { migrateEvalText } from '../migrate/migrate-eval-text.js';
import { rejectUnknownFlags } from './reject-unknown-flags.js';

/** Exit code when the file cannot be read or parsed. */
const FAILED = 1;

const migrateArgs = {
  file: {
    type: 'positional',
    description: 'The eval file in the evalcases: format (input_messages:, evaluators:) to rewrite',
    required: true,
    valueHint: 'FILE',
  },
  write: {
    type: 'boolean',
    description: 'Rewrite FILE in place instead of printing the result',
  },
} as const;

export default defineCommand({
  meta: {
    name: 'migrate',
    description:
      "Rewrite an evalcases: eval file into AgentV 4.x's tests: format (stdout, or --write); both run here",
  },
  args: migrateArgs,
  plugins: [rejectUnknownFlags('migrate')],
  async run({ args }) {
    const file = path.resolve(process.cwd(), args.file);
    const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read ${args.file}: ${error.code ?? error.message}`, {
        hint: 'name an eval file, e.g. `agentv migrate evals/refunds.eval.yaml`',
      });
    });
    const migration = migrateEvalText(text);
    if (migration.errors.length > 0) {
      for (const error of migration.errors) process.stderr.write(`error: ${args.file}: ${error}\n`);
      return FAILED;
    }
    if (args.write !== true) {
      process.stdout.write(migration.text);
      // Printed as it is: said on stderr, so the output can still be piped to a file.
      if (migration.changes.length === 0) {
        process.stderr.write(`${args.file}: already in the current format; printed unchanged\n`);
      }
      return 0;
    }
    if (migration.text !== text) await writeFile(file, migration.text);
    const summary =
      migration.changes.length === 0
        ? 'already in the current format'
        : `rewritten (${migration.changes.join(', ')})`;
    process.stderr.write(`${args.file}: ${summary}\n`);
    return 0;
  },
});
