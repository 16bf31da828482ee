import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { displayPath } from '@agentv/core/internal';
import { defineCommand } from 'citty';
import { agentvCommandFor, commandWord } from '../init/agentv-command.js';
import { schemaReference } from '../init/schema-reference.js';
import { starterFiles } from '../init/starter-files.js';
import { type WriteOutcome, writeStarterFiles } from '../init/write-starter-files.js';
import { createYesNoPrompter } from '../init/yes-no-prompter.js';
import { rejectUnknownFlags } from './reject-unknown-flags.js';

/** Exit code when existing files were kept without asking (no terminal, no --force). */
const FILES_KEPT = 1;

const initArgs = {
  dir: {
    type: 'positional',
    description: 'Folder to set up (default: the current folder)',
    required: false,
    valueHint: 'DIR',
  },
  force: {
    type: 'boolean',
    description: 'Overwrite existing files without asking (for scripts)',
  },
} as const;

export default defineCommand({
  meta: {
    name: 'init',
    description:
      'Write a starter .agentv/ folder, an example agent and an example eval that runs offline',
  },
  args: initArgs,
  plugins: [rejectUnknownFlags('init')],
  async run({ args }) {
    const cwd = process.cwd();
    const dir = path.resolve(cwd, args.dir ?? '.');
    await mkdir(dir, { recursive: true });
    const files = starterFiles({
      targets: await schemaReference('targets.schema.json', path.join(dir, '.agentv'), dir),
      config: await schemaReference('config.schema.json', path.join(dir, '.agentv'), dir),
      eval: await schemaReference('eval.schema.json', path.join(dir, 'evals'), dir),
    });
    // Ask only a person at a terminal; scripts and CI get existing files kept, or --force.
    const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
    const prompter = interactive ? createYesNoPrompter(process.stdin, process.stdout) : undefined;
    let outcome: WriteOutcome;
    try {
      outcome = await writeStarterFiles(dir, files, {
        force: args.force === true,
        confirmOverwrite: prompter
          ? (file) => prompter.ask(`${shown(cwd, dir, file)} exists and differs. Overwrite? [y/N] `)
          : undefined,
      });
    } finally {
      prompter?.close();
    }

    const out = (line: string) => process.stdout.write(`${line}\n`);
    for (const { path: file, action } of outcome) {
      const note =
        action !== 'kept'
          ? ''
          : interactive
            ? ' (it already exists)'
            : ' (it already exists; run with --force to overwrite it)';
      out(`${action.padEnd(11)} ${shown(cwd, dir, file)}${note}`);
    }
    const cd = dir === cwd ? '' : `cd ${commandWord(path.relative(cwd, dir))} && `;
    out('');
    const agentv = await agentvCommandFor(dir);
    out(`Next: ${cd}${agentv} validate && ${agentv} eval`);
    const kept = outcome.some(({ action }) => action === 'kept');
    return kept && !interactive ? FILES_KEPT : 0;
  },
});

function shown(cwd: string, dir: string, file: string): string {
  return displayPath(cwd, path.join(dir, ...file.split('/')));
}
