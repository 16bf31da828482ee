import { stat } from 'node:fs/promises';
import path from 'node:path';
import { displayPath, UsageError } from '@agentv/core/internal';
import { exportViewer, type ResultSources, startViewer } from '@agentv/viewer';
import { defineCommand } from 'citty';
import { outputRoot } from '../eval/project-root.js';
import { ExitCode } from '../exit-code.js';
import { onStopSignals } from '../stop-signals.js';
import { openBrowser } from '../view/open-browser.js';
import { integerFlag, stringFlag } from './flag-values.js';
import { rejectUnknownFlags } from './reject-unknown-flags.js';

const viewArgs = {
  paths: {
    type: 'positional',
    description: 'A results folder (default .agentv/results) or result files (JSONL)',
    required: false,
    valueHint: 'DIR|FILES...',
  },
  port: {
    type: 'string',
    description: 'Port to listen on (default: a free one)',
    valueHint: 'N',
  },
  host: {
    type: 'string',
    description: 'Interface to listen on (default 127.0.0.1); any other needs the printed token',
    valueHint: 'ADDRESS',
  },
  open: {
    type: 'boolean',
    description: 'Open the viewer in a browser (--no-open: only print the URL)',
    default: true,
  },
  export: {
    type: 'string',
    description: 'Write the viewer as static files to DIR instead of serving it',
    valueHint: 'DIR',
  },
} as const;

const DEFAULT_FOLDER = path.join('.agentv', 'results');

export default defineCommand({
  meta: {
    name: 'view',
    description:
      'A local web app over your result files: run history, cases, traces, diffs, comparisons',
  },
  args: viewArgs,
  plugins: [rejectUnknownFlags('view')],
  async run({ args }) {
    const cwd = process.cwd();
    const port = integerFlag(args.port, 'port', 0);
    if (port !== undefined && port > 65_535) {
      throw new UsageError(`--port must be at most 65535, got ${port}`, {
        hint: 'leave --port out to use a free port',
      });
    }
    const host = stringFlag(args.host, 'host');
    const exportDir = stringFlag(args.export, 'export');
    const sources = await sourcesOf(args._, cwd);

    if (exportDir !== undefined) {
      const outDir = path.resolve(cwd, exportDir);
      const written = await exportViewer({ sources, base: cwd, outDir });
      process.stdout.write(
        `Viewer exported: ${displayPath(cwd, outDir)} (${written.runs} run(s), ${written.cases} case(s)); open ${displayPath(cwd, path.join(outDir, 'index.html'))}\n`,
      );
      return ExitCode.Passed;
    }

    const viewer = await startViewer({
      sources,
      base: cwd,
      ...(host === undefined ? {} : { host }),
      ...(port === undefined ? {} : { port }),
    }).catch((error: NodeJS.ErrnoException) => {
      const reason =
        error.code === 'EADDRINUSE'
          ? `port ${port} is in use`
          : error.code === 'EADDRNOTAVAIL'
            ? `${host} is not an address of this machine`
            : error.message;
      throw new UsageError(`cannot start the viewer: ${reason}`, {
        hint: 'leave --port out to use a free port, and --host out to listen on 127.0.0.1',
      });
    });
    process.stdout.write(`AgentV viewer: ${viewer.url}\n`);
    if (viewer.token !== undefined) {
      process.stdout.write(
        `Listening on ${host}: anyone who can reach it needs the token: ${viewer.token}\n`,
      );
    }
    process.stdout.write('Press Ctrl-C to stop.\n');
    if (args.open !== false) openBrowser(viewer.url);
    await new Promise<void>((resolve) => {
      const stop = onStopSignals(() => {
        stop();
        resolve();
      });
    });
    await viewer.close();
    return ExitCode.Passed;
  },
});

/** The folders and files to read: the default results folder, or what the command line names. */
async function sourcesOf(paths: readonly string[], cwd: string): Promise<ResultSources> {
  if (paths.length === 0)
    return { folders: [path.join(outputRoot(cwd), DEFAULT_FOLDER)], files: [] };
  const sources: ResultSources = { folders: [], files: [] };
  for (const given of paths) {
    const absolute = path.resolve(cwd, given);
    const info = await stat(absolute).catch(() => undefined);
    if (info === undefined) {
      throw new UsageError(`${given} does not exist`, {
        hint: 'pass a results folder (agentv eval writes to .agentv/results) or JSONL result files',
      });
    }
    if (info.isDirectory()) sources.folders.push(absolute);
    else if (/\.ya?ml$/i.test(absolute)) {
      throw new UsageError(`${given} is a YAML file; agentv view reads JSONL result files`, {
        hint: 'run agentv eval with the default --output-format jsonl, or pass the folder of JSONL results',
      });
    } else sources.files.push(absolute);
  }
  return sources;
}
