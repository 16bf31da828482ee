import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  AgentvError,
  type AttemptRecord,
  type EvalCase,
  type EvaluationResult,
} from '@agentv/core';
import {
  type BuiltPrompt,
  displayPath,
  UsageError,
  type WorkspaceChangesRecord,
} from '@agentv/core/internal';
import type { ResolvedTarget } from '@agentv/core/provider-utils';
import {
  createJsonlWriter,
  createPromptDumpWriter,
  createTraceDumpWriter,
  createTranscriptWriter,
  createWorkspaceChangesWriter,
  createYamlWriter,
  type NotRunCase,
  type ResultRecordOptions,
  readWorkspaceChanges,
  transcriptsFolder,
  type WorkspaceChanges,
  workspaceChangesFolder,
  writeHtmlReport,
  writeJunitReport,
} from '@agentv/results';
import type { ReportFlags } from './report-flags.js';
import { describeWriteError, type WriteFailure } from './write-failure.js';

/** The files one run writes besides its summary, opened before the first case. */
export interface RunArtifacts {
  /**
   * Writes a result to the result file; resolves to false when it is not in
   * the file: that write failed, or an earlier one did (see `failure`). Never throws.
   */
  save(result: EvaluationResult): Promise<boolean>;
  /** Dumps a case's prompt when `--dump-prompts` is on. Never throws. */
  onPrompt(evalCase: EvalCase, prompt: BuiltPrompt, target: ResolvedTarget): Promise<void>;
  /**
   * Dumps an attempt's trace when `--dump-traces` is on, and saves its agent transcript (coding
   * agents) beside the result file (`transcriptsFolder`), in the background (`finish` waits for
   * it). Never throws.
   */
  onAttempt(record: AttemptRecord): Promise<void>;
  /**
   * Saves what a case changed in its workspace beside the result file
   * (`workspaceChangesFolder`), in the background (`finish` waits for it). Never throws.
   */
  onWorkspaceChanges(record: WorkspaceChangesRecord): Promise<void>;
  /** The first write that failed (result file or dump); the run must stop. */
  readonly failure: WriteFailure | undefined;
  /** Results this run put in the result file. */
  readonly saved: number;
  /**
   * Closes the result file and writes the JUnit and HTML reports from every
   * finished case. Resolves to the lines naming what was written (paths
   * relative to cwd) and, when a report could not be written, the error to end
   * the command with (exit code 2); every report is tried.
   */
  finish(results: readonly EvaluationResult[], incomplete?: IncompleteRun): Promise<FinishedRun>;
  /** Closes the result file without writing reports (the run failed to start or stopped). */
  close(): Promise<void>;
}

/** What `RunArtifacts.finish` wrote. */
export interface FinishedRun {
  /** `Results: out.jsonl`, `JUnit: junit.xml`…: one line per file or folder written. */
  lines: string[];
  /** Set when a report could not be written; it names the report and the cause. */
  error?: AgentvError;
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
  /**
   * Called once, on the first write that fails (a full disk): the caller stops
   * the run, since what it writes next would be lost too.
   */
  onWriteFailure(failure: WriteFailure): void;
}

/**
 * Opens the result file (JSONL or YAML) and the dump folders the flags ask
 * for. A write that fails during the run — the result file or a dump the user
 * asked for — is reported once through `onWriteFailure` and nothing more is
 * written but results (while the result file still can be).
 */
export async function openRunArtifacts(options: RunArtifactsOptions): Promise<RunArtifacts> {
  const { flags, cwd } = options;
  // Find out now, not after a long run, that a report or a dump cannot be written.
  for (const [flag, target, folder] of [
    ['junit', flags.junitPath, flags.junitPath && path.dirname(flags.junitPath)],
    ['html', flags.htmlPath, flags.htmlPath && path.dirname(flags.htmlPath)],
    ['dump-traces', flags.traceDir, flags.traceDir],
    ['dump-prompts', flags.promptDir, flags.promptDir],
  ] as const) {
    if (target && folder) await assertWritableFolder(flag, target, folder, cwd);
  }
  const createWriter = flags.outputFormat === 'yaml' ? createYamlWriter : createJsonlWriter;
  const writer = await createWriter(options.outPath, {
    includeTrace: options.includeTrace,
    ...options.recordOptions,
    ...(options.append ? { append: true } : {}),
  }).catch((error: unknown) => {
    throw new UsageError(
      `cannot write results to ${displayPath(cwd, options.outPath)}: ${describeWriteError(error)}`,
      { hint: 'pass --out a file path in a folder you can write to, on a disk with free space' },
    );
  });
  const traces =
    flags.traceDir === undefined
      ? undefined
      : createTraceDumpWriter(flags.traceDir, { namesTarget: options.severalTargets === true });
  const prompts =
    flags.promptDir === undefined ? undefined : createPromptDumpWriter(flags.promptDir);
  const transcripts = createTranscriptWriter(transcriptsFolder(options.outPath), {
    namesTarget: options.severalTargets === true,
  });
  const workspaceChanges = createWorkspaceChangesWriter(workspaceChangesFolder(options.outPath), {
    namesTarget: options.severalTargets === true,
  });
  // Each case's saved changes, for the HTML report (the last repeat's under --repeat).
  const savedChanges = new Map<string, string>();
  const written = { traces: 0, prompts: 0, workspaces: 0, transcripts: 0 };
  let failure: WriteFailure | undefined;
  // A case's own files (transcripts, workspace changes) are written while the run goes on: the
  // next case does not wait for them; `finish` does.
  const writing = new Set<Promise<void>>();
  const inBackground = (write: Promise<void>) => {
    writing.add(write);
    void write.then(() => writing.delete(write));
  };
  const fail = (kind: WriteFailure['kind'], failedPath: string, error: unknown) => {
    if (failure) return;
    failure = { kind, path: failedPath, error };
    options.onWriteFailure(failure);
  };
  const saveChanges = async ({ result, changes, repeat }: WorkspaceChangesRecord) => {
    try {
      const saved = await workspaceChanges.write({
        evalId: result.evalId,
        dataset: result.dataset,
        evalFile: result.evalFile,
        target: result.target,
        ...(repeat === undefined ? {} : { repeat }),
        ...(result.workspace?.keptAt === undefined ? {} : { keptAt: result.workspace.keptAt }),
        changes,
      });
      written.workspaces++;
      if (flags.htmlPath) savedChanges.set(caseKeyOf(result), saved);
    } catch (error) {
      fail('workspace changes', workspaceChanges.directory, error);
    }
  };

  const notSaved = (error: unknown) => {
    fail('results', options.outPath, error);
    return false;
  };

  return {
    // A promise chain, not an async function: a batch saves thousands of results at once.
    save: (result) => writer.write(result).then(saved, notSaved),
    get failure() {
      return failure;
    },
    get saved() {
      return writer.written;
    },
    async onPrompt(evalCase, prompt, target) {
      if (!prompts || failure) return;
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
        fail('prompt dumps', prompts.directory, error);
      }
    },
    async onAttempt(record) {
      if (failure) return;
      if (record.transcript !== undefined) {
        inBackground(
          transcripts.write({ ...record, transcript: record.transcript }).then(
            () => {
              written.transcripts++;
            },
            (error) => fail('transcripts', transcripts.directory, error),
          ),
        );
      }
      if (!traces) return;
      try {
        await traces.write(record);
        written.traces++;
      } catch (error) {
        fail('trace dumps', traces.directory, error);
      }
    },
    async onWorkspaceChanges({ result, changes, repeat }) {
      if (failure) return;
      // Nothing to show and nothing `grade` reads back (it reads kept workspaces' changes):
      // the result line's summary says it all, and a file per case would cost ~1 ms a case.
      if (changes.files.length === 0 && result.workspace?.keptAt === undefined) return;
      inBackground(saveChanges({ result, changes, repeat }));
    },
    async finish(results, incomplete) {
      await Promise.all(writing);
      const notRun = incomplete?.notRun ?? [];
      const interrupted =
        notRun.length > 0
          ? `interrupted: ${notRun.length} of ${incomplete!.total} cases did not run`
          : undefined;
      await writer.close();
      const resultFile = displayPath(cwd, options.outPath);
      const lines = [`Results: ${resultFile}`];
      if (traces) lines.push(`Traces: ${folderLine(cwd, traces.directory, written.traces)}`);
      if (prompts) lines.push(`Prompts: ${folderLine(cwd, prompts.directory, written.prompts)}`);
      if (written.transcripts > 0) {
        lines.push(`Transcripts: ${folderLine(cwd, transcripts.directory, written.transcripts)}`);
      }
      if (written.workspaces > 0) {
        lines.push(
          `Workspace changes: ${folderLine(cwd, workspaceChanges.directory, written.workspaces)}`,
        );
      }
      const failed: { kind: string; path: string; error: unknown }[] = [];
      const report = async (
        kind: string,
        label: string,
        reportPath: string,
        write: () => Promise<void>,
      ) => {
        try {
          await write();
          lines.push(`${label}: ${displayPath(cwd, reportPath)}`);
        } catch (error) {
          failed.push({ kind, path: reportPath, error });
        }
      };
      if (flags.junitPath) {
        await report('JUnit report', 'JUnit', flags.junitPath, () =>
          writeJunitReport(flags.junitPath!, results, { relativeTo: cwd, notRun }),
        );
      }
      if (flags.htmlPath) {
        const workspaceChanges =
          savedChanges.size === 0 ? undefined : await loadSavedChanges(results, savedChanges);
        await report('HTML report', 'HTML report', flags.htmlPath, () =>
          writeHtmlReport(flags.htmlPath!, results, {
            relativeTo: cwd,
            resultFile,
            ...(interrupted === undefined ? {} : { interrupted }),
            ...(workspaceChanges === undefined ? {} : { workspaceChanges }),
          }),
        );
      }
      return failed.length === 0
        ? { lines }
        : { lines, error: reportError(failed, cwd, resultFile) };
    },
    close: () => writer.close(),
  };
}

function saved(): boolean {
  return true;
}

function caseKeyOf(result: Pick<EvaluationResult, 'evalFile' | 'evalId' | 'target'>): string {
  return `${result.evalFile}\u0000${result.evalId}\u0000${result.target}`;
}

/** The saved changes of each result that has them, read back for the HTML report. */
async function loadSavedChanges(
  results: readonly EvaluationResult[],
  saved: ReadonlyMap<string, string>,
): Promise<(result: EvaluationResult) => WorkspaceChanges | undefined> {
  const loaded = new Map<string, WorkspaceChanges>();
  for (const result of results) {
    const key = caseKeyOf(result);
    const file = saved.get(key);
    if (file === undefined || loaded.has(key)) continue;
    // A file that cannot be read back only leaves the report without that diff.
    const changes = await readWorkspaceChanges(file).catch(() => undefined);
    if (changes !== undefined) loaded.set(key, changes);
  }
  return (result) => loaded.get(caseKeyOf(result));
}

/** The error of reports that could not be written. */
function reportError(
  failed: readonly { kind: string; path: string; error: unknown }[],
  cwd: string,
  resultFile: string,
): AgentvError {
  const problems = failed.map(
    (report) =>
      `the ${report.kind} to ${displayPath(cwd, report.path)}: ${describeWriteError(report.error)}`,
  );
  const flags = failed.map((report) =>
    report.kind === 'JUnit report'
      ? `--junit ${displayPath(cwd, report.path)}`
      : `--html ${displayPath(cwd, report.path)}`,
  );
  return new AgentvError(`could not write ${problems.join('; nor ')}`, {
    hint: `every result is saved in ${resultFile}; free some space or choose another path, then write the report from it with agentv results merge ${resultFile} --out <new file> ${flags.join(' ')}`,
    cause: failed[0]!.error,
  });
}

function folderLine(cwd: string, folder: string, count: number): string {
  return `${displayPath(cwd, folder)}${path.sep} (${count} ${count === 1 ? 'file' : 'files'})`;
}

/** Throws a usage error naming `--flag target` when `folder`, or the nearest one that exists, is not writable. */
async function assertWritableFolder(
  flag: string,
  target: string,
  start: string,
  cwd: string,
): Promise<void> {
  // The nearest folder that exists must be writable (the writer creates the rest). Nothing
  // is created here: that would leave empty folders behind when the run fails to start.
  let folder = start;
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
    throw new UsageError(`cannot write --${flag} ${displayPath(cwd, target)}: ${problem}`, {
      hint: `pass --${flag} a path in a folder you can write to`,
    });
  }
}
