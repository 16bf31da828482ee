import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  AgentvError,
  type AttemptRecord,
  type BuiltPrompt,
  displayPath,
  type EvalCase,
  type EvaluationResult,
  type ResolvedTarget,
  UsageError,
} from '@agentv/core';
import {
  createJsonlWriter,
  createPromptDumpWriter,
  createTraceDumpWriter,
  createYamlWriter,
  type NotRunCase,
  type ResultRecordOptions,
  type ResultWriter,
  writeHtmlReport,
  writeJunitReport,
} from '@agentv/results';
import type { ReportFlags } from './report-flags.js';

/** The files one run writes besides its summary, opened before the first case. */
export interface RunArtifacts {
  writer: ResultWriter;
  /** Dumps a case's prompt when `--dump-prompts` is on. Never throws. */
  onPrompt(evalCase: EvalCase, prompt: BuiltPrompt, target: ResolvedTarget): Promise<void>;
  /** Dumps an attempt's trace when `--dump-traces` is on. Never throws. */
  onAttempt(record: AttemptRecord): Promise<void>;
  /**
   * Closes the result file and writes the JUnit and HTML reports from every
   * finished case; returns the lines naming what was written (paths relative to cwd).
   */
  finish(results: readonly EvaluationResult[], incomplete?: IncompleteRun): Promise<string[]>;
  /** Closes the result file without writing reports (the run failed to start). */
  close(): Promise<void>;
}

/** The cases an interrupted run never ran; the reports say so. */
export interface IncompleteRun {
  notRun: readonly NotRunCase[];
  /** Cases of the whole run (finished and not). */
  total: number;
}

export interface RunArtifactsOptions {
  /** Adds to the result file instead of starting it empty (`--resume`). */
  append?: boolean;
  flags: ReportFlags;
  /** Absolute path of the result file. */
  outPath: string;
  includeTrace: boolean;
  /** More result-line options (`eval_file`, `run`). */
  recordOptions?: Omit<ResultRecordOptions, 'includeTrace'>;
  cwd: string;
  /** The run has several targets: trace dump file names name the target. */
  severalTargets?: boolean;
  /** Prints a warning without breaking the progress display. */
  warn(message: string): void;
}

/**
 * Opens the result file (JSONL or YAML) and the dump folders the flags ask
 * for. A dump that cannot be written is a warning, printed once per kind: the
 * results matter more than the debugging aids, and the run goes on.
 */
export async function openRunArtifacts(options: RunArtifactsOptions): Promise<RunArtifacts> {
  const { flags, cwd } = options;
  // Find out now, not after a long run, that a report cannot be written.
  for (const [flag, reportPath] of [
    ['junit', flags.junitPath],
    ['html', flags.htmlPath],
  ] as const) {
    if (reportPath !== undefined) await assertWritableFolder(flag, reportPath, cwd);
  }
  const createWriter = flags.outputFormat === 'yaml' ? createYamlWriter : createJsonlWriter;
  const writer = await createWriter(options.outPath, {
    includeTrace: options.includeTrace,
    ...options.recordOptions,
    ...(options.append ? { append: true } : {}),
  }).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(
      `cannot write results to ${displayPath(cwd, options.outPath)}: ${error.code ?? error.message}`,
      { hint: 'pass --out a file path in a folder you can write to' },
    );
  });
  const traces =
    flags.traceDir === undefined
      ? undefined
      : createTraceDumpWriter(flags.traceDir, { namesTarget: options.severalTargets === true });
  const prompts =
    flags.promptDir === undefined ? undefined : createPromptDumpWriter(flags.promptDir);
  const written = { traces: 0, prompts: 0 };
  const warned = new Set<string>();
  const warnOnce = (kind: string, folder: string, error: unknown) => {
    if (warned.has(kind)) return;
    warned.add(kind);
    options.warn(
      `could not write ${kind} to ${displayPath(cwd, folder)}: ${error instanceof Error ? error.message : String(error)}; the run goes on without them`,
    );
  };

  return {
    writer,
    async onPrompt(evalCase, prompt, target) {
      if (!prompts) return;
      try {
        await prompts.write({
          evalId: evalCase.id,
          dataset: evalCase.dataset,
          evalFile: evalCase.filePath,
          target: target.name,
          prompt,
        });
        written.prompts++;
      } catch (error) {
        warnOnce('prompt dumps', prompts.directory, error);
      }
    },
    async onAttempt(record) {
      if (!traces) return;
      try {
        await traces.write(record);
        written.traces++;
      } catch (error) {
        warnOnce('trace dumps', traces.directory, error);
      }
    },
    async finish(results, incomplete) {
      const notRun = incomplete?.notRun ?? [];
      const interrupted =
        notRun.length > 0
          ? `interrupted: ${notRun.length} of ${incomplete!.total} cases did not run`
          : undefined;
      await writer.close();
      const lines = [`Results: ${displayPath(cwd, options.outPath)}`];
      if (traces) lines.push(`Traces: ${folderLine(cwd, traces.directory, written.traces)}`);
      if (prompts) lines.push(`Prompts: ${folderLine(cwd, prompts.directory, written.prompts)}`);
      if (flags.junitPath) {
        await report('JUnit report', flags.junitPath, () =>
          writeJunitReport(flags.junitPath!, results, { relativeTo: cwd, notRun }),
        );
        lines.push(`JUnit: ${displayPath(cwd, flags.junitPath)}`);
      }
      if (flags.htmlPath) {
        await report('HTML report', flags.htmlPath, () =>
          writeHtmlReport(flags.htmlPath!, results, {
            relativeTo: cwd,
            resultFile: displayPath(cwd, options.outPath),
            ...(interrupted === undefined ? {} : { interrupted }),
          }),
        );
        lines.push(`HTML report: ${displayPath(cwd, flags.htmlPath)}`);
      }
      return lines;
    },
    close: () => writer.close(),
  };
}

async function report(kind: string, filePath: string, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    throw new AgentvError(
      `could not write the ${kind} to ${filePath}: ${error instanceof Error ? error.message : String(error)}`,
      {
        hint: 'choose a path in a folder you can write to; the result file was written',
        cause: error,
      },
    );
  }
}

function folderLine(cwd: string, folder: string, count: number): string {
  return `${displayPath(cwd, folder)}${path.sep} (${count} ${count === 1 ? 'file' : 'files'})`;
}

async function assertWritableFolder(flag: string, reportPath: string, cwd: string): Promise<void> {
  // The nearest folder that exists must be writable (the report creates the rest). Nothing
  // is created here: that would leave empty folders behind when the run fails to start.
  let folder = path.dirname(reportPath);
  let problem: string | undefined;
  for (;;) {
    const info = await stat(folder).catch(() => undefined);
    if (info) {
      if (!info.isDirectory()) problem = `${displayPath(cwd, folder)} is not a folder`;
      else if (
        !(await access(folder, constants.W_OK).then(
          () => true,
          () => false,
        ))
      ) {
        problem = `${displayPath(cwd, folder)} is not writable`;
      }
      break;
    }
    const parent = path.dirname(folder);
    if (parent === folder) break;
    folder = parent;
  }
  if (problem) {
    throw new UsageError(`cannot write --${flag} ${displayPath(cwd, reportPath)}: ${problem}`, {
      hint: `pass --${flag} a file path in a folder you can write to`,
    });
  }
}
