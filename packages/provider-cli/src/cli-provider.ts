import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  unlinkSync,
} from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Issue } from '@agentv/core';
import {
  callLabel,
  callTimeout,
  DEFAULT_MAX_OUTPUT_BYTES,
  describeCallTimeout,
  formatBytes,
  makeTempDir,
  outputLimitError,
  PROVIDER_SPECIFICATION_VERSION,
  type Provider,
  type ProviderContext,
  ProviderError,
  type ProviderFactory,
  type ProviderOptions,
  type ProviderRequest,
  type ProviderResponse,
  providerOptions,
  type ResolvedTarget,
  type RunProcessOptions,
  type Sandbox,
  shellQuote,
  stderrExcerpt,
  stderrSummary,
} from '@agentv/core/provider-utils';
import {
  CLI_SETTINGS_KEYS,
  type CliProviderSettings,
  checkCliUse,
  DEFAULT_CLI_TIMEOUT_SECONDS,
  parseCliSettings,
  validateCliSettings,
} from './cli-provider-settings.js';
import { describeEnd, throwIfAborted, throwIfFailed, throwIfTooLong } from './command-failure.js';
import { withHealthcheck } from './healthcheck.js';
import { batchOutputLimit, batchOutputTooLong, parseBatchOutput } from './parse-batch-output.js';
import { parseCliOutput } from './parse-output.js';
import { createPersistentCliProvider } from './persistent-provider.js';
import { CALL_FILES, preparePlaceholderValues } from './placeholder-values.js';
import { withoutAgentvVariables } from './placeholder-variables.js';
import { FILE_PLACEHOLDERS } from './placeholders.js';
import { createRedactor } from './redact.js';
import { compileCommandTemplate, type RenderedCommand } from './render-command-template.js';
import { writeRequestBundle } from './request-bundle.js';
import { type CommandOutcome, type RunCommandOptions, runCommand } from './run-command.js';
import {
  openSandboxCallDir,
  requestInSandbox,
  type SandboxCallDir,
  sandboxCwd,
  shareCallFiles,
} from './sandbox-call.js';
import { runInSandbox, throwIfSandboxFailed } from './sandbox-command.js';
import { withTraceFile } from './trace-file.js';
import { workingDirectory } from './working-directory.js';

/** What `createCliProvider` needs besides the settings. */
export interface CliProviderOptions extends ProviderOptions {
  /** Time between SIGTERM and SIGKILL when a command is stopped. Default 2000 ms. */
  killGraceMs?: number;
}

/**
 * Creates a provider that answers each case by running `settings.commandTemplate`
 * through `/bin/sh` in its own process group, the call's values in `AGENTV_*`
 * environment variables its placeholders refer to (`compileCommandTemplate`), the
 * answer read from `{OUTPUT_FILE}` when the template uses it, else from stdout,
 * and parsed by `parseCliOutput`.
 *
 * `durationMs` is the agent's own `duration_ms` when it reports one, else the
 * measured wall time (always kept in `raw.wallTimeMs`). Values of `settings.env`
 * are masked as `***` in logs, `raw` and error messages.
 *
 * `invoke` throws `ProviderError`: retryable for a non-zero exit, a timeout, an
 * exit 0 without an answer (`noAnswer`) or a transient start failure (EAGAIN, EMFILE, ...); not
 * retryable when the command cannot be rendered, cannot ever start (missing
 * cwd, invalid environment), or when the request's signal stopped it.
 * With `settings.mode: 'persistent'` it returns `createPersistentCliProvider`'s provider.
 */
export function createCliProvider(
  settings: CliProviderSettings,
  options: CliProviderOptions,
): Provider {
  // `mode: persistent`: one long-lived process per worker instead of one per case.
  if (settings.mode === 'persistent') return createPersistentCliProvider(settings, options);
  const { targetName } = options;
  const log = options.log ?? ((line: string) => console.error(line));
  const verbose = options.verbose === true || settings.verbose;
  const redact = createRedactor(settings.env, options.secretValues);
  // Read once: every call only fills in its values (see compileCommandTemplate).
  const template = compileCommandTemplate(settings.commandTemplate, {
    filesFormat: settings.filesFormat,
    attachmentsFormat: settings.attachmentsFormat,
  });
  const used = template.uses;
  const needsTempDir = FILE_PLACEHOLDERS.some((name) => used.has(name));
  // The files a call's temp dir holds once the command ran (those it did not write are skipped).
  const callFiles = [
    ...(used.has('PROMPT_FILE') ? [CALL_FILES.prompt] : []),
    ...(used.has('INPUT_FILE') ? [CALL_FILES.input] : []),
    ...(used.has('OUTPUT_FILE') ? [CALL_FILES.output] : []),
    ...(used.has('TRACE_FILE') ? [CALL_FILES.trace] : []),
    ...(used.has('CONVERSATION_FILE') ? [CALL_FILES.conversation] : []),
  ];
  // --agent-timeout wins over timeout_seconds (core's one rule for every provider); without
  // either, the cli default stops an agent that hangs.
  const timeout = callTimeout(settings.timeoutSeconds, options, DEFAULT_CLI_TIMEOUT_SECONDS);
  const timeoutSeconds = timeout.seconds;
  const prefix = `[cli:${targetName}]`;
  if (verbose) log(`${prefix} time limit per call: ${describeCallTimeout(timeout)}`);
  const maxOutputBytes = settings.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  // The project's environment (shell over `.env`) when the app passes it, else the process's;
  // built once; each command gets it with its call's `AGENTV_*` values added.
  const env = withoutAgentvVariables({ ...(options.env ?? process.env), ...settings.env });
  // Everything a call's run needs besides its command, cwd and signal: the same for every case.
  const runOptions = {
    env,
    ...(timeoutSeconds === undefined ? {} : { timeoutMs: timeoutSeconds * 1000 }),
    ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
    // Enough for the excerpt and --verbose; the rest is dropped as it comes, so no stderr fills the disk.
    maxStderrBytes: STDERR_KEPT_BYTES,
  };
  const callDirs = needsTempDir ? createCallDirs() : undefined;
  // Cases of one eval file share their working directory: resolved once per eval folder.
  const cwds = new Map<string | undefined, string>();
  const cwdFor = (request: Pick<ProviderRequest, 'evalDir' | 'workspace'>) => {
    // Every case with a workspace has its own folder: nothing to share.
    if (request.workspace !== undefined) return workingDirectory(settings, request);
    let cwd = cwds.get(request.evalDir);
    if (cwd === undefined) {
      cwd = workingDirectory(settings, request);
      cwds.set(request.evalDir, cwd);
    }
    return cwd;
  };

  /**
   * Runs a rendered command with the target's cwd, env (plus the call's variables) and
   * timeout and the call's output `limits`, logging it when verbose; throws for a failed run or
   * output past its limit. Returns the outcome, its redacted stderr and the diagnostics every response
   * carries in `raw`.
   */
  const execute = async (
    { command, variables, argv }: RenderedCommand,
    label: string,
    request: Pick<ProviderRequest, 'signal' | 'evalDir' | 'workspace' | 'sandbox' | 'traceContext'>,
    limits: OutputLimits,
  ) => {
    const signal = request.signal;
    const sandbox = request.sandbox;
    const cwd = sandbox === undefined ? cwdFor(request) : sandboxCwd(settings.cwd);
    // With several workers lines interleave: every line names its case and attempt.
    const tag = verbose ? `${prefix} ${label}` : '';
    // Where each call enters its cgroup, the shell that moves it there then execs the program
    // itself: no second shell to start, and to wait for when the program ends.
    const direct = argv !== undefined && sandbox === undefined;
    if (verbose) {
      log(`${tag}: ${redact(command)}`);
      const shown = referencedVariables(command, variables);
      if (shown !== '') log(`${tag} env: ${redact(shown)}`);
      log(`${tag} cwd: ${cwd}`);
      if (direct) log(`${tag} plain words: run without a shell`);
    }
    // The call's variables on top of the shared environment without copying it (a copy of
    // process.env per call costs more than the rest of the call's own work): Node's spawn
    // reads inherited keys too, on purpose and under test in Node itself.
    let outcome: CommandOutcome;
    if (sandbox === undefined) {
      const callEnv: Record<string, string | undefined> = Object.create(env);
      Object.assign(callEnv, variables);
      if (request.traceContext !== undefined) {
        Object.assign(callEnv, traceEnv(request.traceContext.env, settings.env));
      }
      const run: RunCommandOptions = { ...runOptions, ...limits.run, env: callEnv, command, cwd };
      if (signal !== undefined) run.signal = signal;
      if (direct) {
        run.argv = argv;
        // What /bin/sh would export: PWD naming the directory the command runs in.
        callEnv.PWD = cwd;
      }
      outcome = await runCommand(run);
    } else {
      outcome = await runInSandbox(sandbox, {
        ...runOptions,
        ...limits.run,
        // The target's own `env:` and the call's values; nothing else of this machine's.
        env: {
          ...settings.env,
          ...variables,
          ...(request.traceContext && traceEnv(request.traceContext.env, settings.env)),
        },
        command,
        cwd,
        ...(signal === undefined ? {} : { signal }),
      });
    }
    const stderr = redact(outcome.stderr);
    if (verbose) {
      log(`${tag} ${describeEnd(outcome, timeoutSeconds)} after ${outcome.durationMs} ms`);
      for (const line of stderr.trimEnd().split(/\r?\n/)) {
        if (line.trim()) log(`${tag} stderr: ${line}`);
      }
    }
    limits.throwIfTooLong(outcome);
    if (sandbox !== undefined) throwIfSandboxFailed(outcome, stderr);
    throwIfFailed(outcome, stderr, timeout, verbose);
    const raw = {
      command: redact(command),
      cwd,
      exitCode: outcome.exitCode,
      stderr: stderrExcerpt(stderr),
      wallTimeMs: outcome.durationMs,
    };
    return { outcome, stderr, raw };
  };

  // The answer on stdout: stopped past the limit.
  const stdoutLimits: OutputLimits = {
    run: { outputLimit: { stdoutBytes: maxOutputBytes } },
    throwIfTooLong: (outcome) => throwIfTooLong(outcome, "the agent's answer on stdout"),
  };
  // The answer in {OUTPUT_FILE}: stdout is not read, so none of it is kept.
  const outputFileLimits = (path: string): OutputLimits => ({
    run: { maxStdoutBytes: 0, outputLimit: { files: [{ path, maxBytes: maxOutputBytes }] } },
    throwIfTooLong: (outcome) => throwIfTooLong(outcome, "the agent's answer in {OUTPUT_FILE}"),
  });
  // A batch's answers in {OUTPUT_FILE}: max_output_bytes for each case of the batch.
  const batchLimits = (path: string, cases: number): OutputLimits => ({
    run: {
      maxStdoutBytes: 0,
      outputLimit: { files: [{ path, maxBytes: batchOutputLimit(maxOutputBytes, cases) }] },
    },
    throwIfTooLong: (outcome) => {
      const exceeded = outcome.outputLimitExceeded;
      if (exceeded) throw batchOutputTooLong(maxOutputBytes, cases, exceeded);
    },
  });

  /** One call's answer, from stdout or `{OUTPUT_FILE}`; nothing but blanks is an error. */
  const answerOf = (
    { outcome, stderr, raw }: Awaited<ReturnType<typeof execute>>,
    outputFile: string | undefined,
  ): ProviderResponse => {
    const content =
      outputFile === undefined
        ? outcome.stdout
        : readOutputFile(outputFile, maxOutputBytes, stderr);
    if (!/\S/.test(content)) throw noAnswer(content, outputFile, stderr);
    const response = parseCliOutput(content);
    return { ...response, durationMs: response.durationMs ?? outcome.durationMs, raw };
  };

  const invoke = async (request: ProviderRequest): Promise<ProviderResponse> => {
    throwIfAborted(request.signal);
    if (request.sandbox !== undefined) return invokeInSandbox(request, request.sandbox);
    const tempDir = await callDirs?.create();
    try {
      const { values, outputFile, traceFile } = await preparePlaceholderValues(
        request,
        used,
        tempDir,
      );
      const limits = outputFile === undefined ? stdoutLimits : outputFileLimits(outputFile);
      const executed = await execute(template.render(values), callLabel(request), request, limits);
      const response = answerOf(executed, outputFile);
      // Awaited here: the call's folder, with the file, is removed in \`finally\`.
      return traceFile === undefined
        ? response
        : await withTraceFile(response, traceFile, maxOutputBytes);
    } finally {
      if (tempDir !== undefined) await callDirs?.release(tempDir, callFiles);
    }
  };

  // In a container: the call's files go through the sandbox's exchange folder, the case's
  // files are copied there, and the command sees the workspace at /workspace.
  const sandboxFiles = needsTempDir || used.has('FILES') || used.has('ATTACHMENTS');
  const invokeInSandbox = async (
    request: ProviderRequest,
    sandbox: Sandbox,
  ): Promise<ProviderResponse> => {
    const call = sandboxFiles ? await openSandboxCallDir(sandbox) : undefined;
    try {
      const inside = await requestInSandbox(request, call);
      const { values, outputFile, traceFile } = await preparePlaceholderValues(
        inside,
        used,
        call?.hostDir,
      );
      if (call !== undefined) {
        insideCallPaths(values, call);
        await shareCallFiles(call);
      }
      const limits = outputFile === undefined ? stdoutLimits : outputFileLimits(outputFile);
      const executed = await execute(template.render(values), callLabel(request), request, limits);
      const response = answerOf(executed, outputFile);
      // Awaited here: the call's folder, with the file, is removed in \`finally\`.
      return traceFile === undefined
        ? response
        : await withTraceFile(response, traceFile, maxOutputBytes);
    } finally {
      await call?.remove();
    }
  };

  // Batch mode: one run answers every request; the bundle goes to {INPUT_FILE} and
  // the answers come back as JSONL in {OUTPUT_FILE}.
  const invokeBatch = async (requests: ProviderRequest[]): Promise<ProviderResponse[]> => {
    const first = requests[0];
    if (first === undefined) return [];
    throwIfAborted(first.signal);
    // Batches run only with `isolation: shared`: every case of the batch has this workspace (and container).
    const sandbox = first.sandbox;
    const call = sandbox === undefined ? undefined : await openSandboxCallDir(sandbox);
    const tempDir = call?.hostDir ?? (await makeTempDir('cli-batch'));
    try {
      const inputFile = join(tempDir, 'input.jsonl');
      const outputFile = join(tempDir, 'output.jsonl');
      const bundled =
        call === undefined
          ? requests
          : await Promise.all(requests.map((request) => requestInSandbox(request, call)));
      await writeRequestBundle(inputFile, bundled);
      if (call !== undefined) await shareCallFiles(call);
      const at = (path: string) => call?.inside(path) ?? path;
      const workspace = call === undefined ? first.workspace : bundled[0]!.workspace;
      const rendered = template.render({
        EVAL_ID: 'batch',
        ATTEMPT: String(first.attempt),
        REPEAT: String(first.repeat ?? 1),
        INPUT_FILE: at(inputFile),
        OUTPUT_FILE: at(outputFile),
        ...(workspace === undefined ? {} : { WORKSPACE: workspace }),
        ...batchEvalDir(requests),
      });
      // The command starts first, and the case ids are indexed while it runs (a large batch's
      // index took several ms to build); a batch that holds an id twice then stops it at once.
      const stop = new AbortController();
      const running = execute(
        rendered,
        `batch of ${requests.length} attempt ${first.attempt + 1}`,
        {
          ...first,
          signal:
            first.signal === undefined ? stop.signal : AbortSignal.any([first.signal, stop.signal]),
        },
        batchLimits(outputFile, requests.length),
      );
      let cases: Map<string, number>;
      try {
        cases = caseIndex(requests);
      } catch (error) {
        stop.abort();
        await running.catch(() => {});
        throw error;
      }
      const { raw } = await running;
      const responses = await parseBatchOutput(outputFile, cases, maxOutputBytes);
      const batchRaw = { ...raw, batchSize: requests.length };
      // The parsed responses are this call's own: each gets `raw` set, not copied with it.
      for (const response of responses) response.raw = batchRaw;
      return responses;
    } finally {
      await rm(tempDir, { recursive: true, force: true });
    }
  };

  /** The call's file placeholders as the command in the container sees them. */
  const insideCallPaths = (values: Record<string, unknown>, call: SandboxCallDir) => {
    for (const name of FILE_PLACEHOLDERS) {
      const value = values[name];
      if (typeof value === 'string') values[name] = call.inside(value);
    }
  };

  const provider: Provider = {
    specificationVersion: PROVIDER_SPECIFICATION_VERSION,
    id: `cli:${targetName}`,
    kind: 'cli',
    targetName,
    supportsBatch: true,
    invoke,
    invokeBatch,
    ...(callDirs === undefined ? {} : { close: () => callDirs.remove() }),
  };
  return withHealthcheck(provider, settings, {
    redact,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
  });
}

/** How much of stderr a call keeps: its last 1 MiB. */
const STDERR_KEPT_BYTES = 1024 * 1024;

/** A call's output limits: what `runCommand` enforces and the error when one was passed. */
interface OutputLimits {
  run: Pick<RunProcessOptions, 'maxStdoutBytes' | 'outputLimit'>;
  throwIfTooLong(outcome: CommandOutcome): void;
}

/** The `cli` provider factory, registered by the app under `provider: cli`. */
export const cliProviderFactory: ProviderFactory = {
  kind: 'cli',
  settingsKeys: CLI_SETTINGS_KEYS,
  validate(target: ResolvedTarget): Issue[] {
    return validateCliSettings(target);
  },
  checkUse: checkCliUse,
  create(target: ResolvedTarget, context: ProviderContext): Provider {
    return createCliProvider(parseCliSettings(target), providerOptions(target, context));
  },
};

/** Makes the private folders of calls whose template names files, and removes them. */
interface CallDirs {
  /** A new, empty folder for one call; hand it to `release` when the call is done. */
  create(): Promise<string>;
  /** Empties a call's folder for the next call (see `emptyCallDir`); removes the run's folder once no call is left. */
  release(dir: string, files: readonly string[]): Promise<void>;
  /** Removes every folder made so far. Never rejects. */
  remove(): Promise<void>;
}

/** Run folders not yet removed, removed on the way out if the provider is never closed. */
const liveRunDirs = new Set<string>();
let exitHookInstalled = false;

/**
 * One folder in the system temp directory while calls run (made by the first, removed when
 * the last one ends), and in it one numbered folder per running call. A call's folder is
 * emptied when it ends and handed to the next call if nothing but AgentV's own files was in
 * it (a call never sees another's files), so a steady run costs no `mkdir`/`rmdir` per call;
 * nothing is left behind between runs.
 */
function createCallDirs(): CallDirs {
  let runDir: Promise<string> | undefined;
  let count = 0;
  // Calls between `create` and the end of `release`.
  let active = 0;
  // Empty call folders in the current run folder, ready for the next call.
  let free: string[] = [];
  const makeRunDir = async () => {
    try {
      const dir = await makeTempDir('cli');
      liveRunDirs.add(dir);
      if (!exitHookInstalled) {
        exitHookInstalled = true;
        // Ctrl-C and fatal errors end in process.exit: only synchronous work runs then.
        process.once('exit', () => {
          for (const left of liveRunDirs) removeRunDir(left);
        });
      }
      return dir;
    } catch (error) {
      runDir = undefined;
      throw error;
    }
  };
  const settle = async () => {
    active--;
    const parent = runDir;
    if (active > 0 || parent === undefined) return;
    // The next call makes a new run folder while this one is removed.
    runDir = undefined;
    free = [];
    const dir = await parent.catch(() => undefined);
    if (dir === undefined) return;
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    liveRunDirs.delete(dir);
  };
  return {
    async create() {
      active++;
      try {
        runDir ??= makeRunDir();
        const parent = await runDir;
        const reused = free.pop();
        if (reused !== undefined) return reused;
        const dir = join(parent, `call-${++count}`);
        await mkdir(dir, { mode: 0o700 });
        return dir;
      } catch (error) {
        await settle();
        throw error;
      }
    },
    async release(dir, files) {
      if (await emptyCallDir(dir, files)) free.push(dir);
      await settle();
    },
    async remove() {
      const parent = runDir;
      runDir = undefined;
      const dir = await parent?.catch(() => undefined);
      if (dir === undefined) return;
      removeRunDir(dir);
      liveRunDirs.delete(dir);
    },
  };
}

function removeRunDir(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // Left in the temp directory: nothing to do about it on the way out.
  }
}

/**
 * Empties a call's folder for the next call: removes the files AgentV put there and tells
 * whether the folder is empty now. A folder the command left anything else in (or that
 * cannot be read) is removed with everything in it instead, and is not reused.
 */
async function emptyCallDir(dir: string, files: readonly string[]): Promise<boolean> {
  try {
    for (const name of files) {
      try {
        unlinkSync(join(dir, name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    if (readdirSync(dir).length === 0) return true;
  } catch {
    // Removed below.
  }
  await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  return false;
}

/**
 * The answer in `{OUTPUT_FILE}`: one synchronous read (open, read, close: no directory entry
 * changes, microseconds) of at most `maxBytes` + 1 bytes, whatever the path is (`/dev/zero`
 * never ends; a FIFO is read without waiting for a writer); more than `maxBytes` is core's
 * `outputLimitError`. A file the command did not write is `noAnswer`'s error.
 */
function readOutputFile(path: string, maxBytes: number, stderr: string): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ProviderError(`could not read {OUTPUT_FILE} (${path}): ${reason}`, {
        retryable: true,
        cause: error,
      });
    }
    throw noAnswer(undefined, path, stderr);
  }
  try {
    // Sized by the file, one byte more to see its end; a file that reports no size (a
    // device, a FIFO) starts small and grows, up to one byte past the limit.
    const size = fstatSync(fd).size;
    let buffer = Buffer.allocUnsafe(Math.min(maxBytes + 1, size > 0 ? size + 1 : 65_536));
    let total = 0;
    for (;;) {
      if (total === buffer.length) {
        if (total > maxBytes) break;
        const grown = Buffer.allocUnsafe(Math.min(maxBytes + 1, buffer.length * 2));
        buffer.copy(grown, 0, 0, total);
        buffer = grown;
      }
      const count = readUnlessWouldBlock(fd, buffer, total);
      if (count === 0) break;
      total += count;
    }
    if (total > maxBytes) {
      throw outputLimitError(
        `the agent's answer in {OUTPUT_FILE} passed max_output_bytes (${formatBytes(maxBytes)})`,
      );
    }
    return buffer.toString('utf8', 0, total);
  } finally {
    closeSync(fd);
  }
}

/** `readSync` into `buffer` from `offset`; 0 (the end) where a FIFO has nothing more yet. */
function readUnlessWouldBlock(fd: number, buffer: Buffer, offset: number): number {
  try {
    return readSync(fd, buffer, offset, buffer.length - offset, null);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return 0;
    throw error;
  }
}

const EMPTY_ON_PURPOSE = 'write {"text": ""} to answer with an empty string on purpose';

/**
 * The error for a command that exited 0 without an answer: nothing (or only
 * whitespace) on stdout, or in `{OUTPUT_FILE}`, or no `{OUTPUT_FILE}` at all
 * (`content` undefined). One rule for both places: an agent that says nothing
 * failed, like one that exits non-zero (retryable), rather than being graded
 * as if it had answered "".
 */
function noAnswer(
  content: string | undefined,
  outputFile: string | undefined,
  stderr: string,
): ProviderError {
  const nothing = content === '' ? 'nothing' : 'only whitespace';
  const what =
    outputFile === undefined
      ? `printed ${nothing} on stdout`
      : content === undefined
        ? `did not write {OUTPUT_FILE} (${outputFile})`
        : `wrote ${nothing} to {OUTPUT_FILE} (${outputFile})`;
  const summary = stderrSummary(stderr);
  const message = `the command exited with code 0 but ${what}`;
  return new ProviderError(summary ? `${message}; ${summary}` : message, {
    retryable: true,
    ...(stderr.trim() ? { stderr: stderrExcerpt(stderr) } : {}),
    hint:
      outputFile === undefined
        ? `print the answer on stdout, or ${EMPTY_ON_PURPOSE}`
        : `make the command write its answer to the path it is given for {OUTPUT_FILE} (or remove {OUTPUT_FILE} from command_template to read stdout instead); ${EMPTY_ON_PURPOSE}`,
  });
}

const VALUE_SHOWN_CHARS = 200;

/**
 * `AGENTV_PROMPT='…' AGENTV_EVAL_ID='…'`: the variables `command` references, for
 * the verbose log, so the command can be run by hand. Long values are cut, with their size.
 */
function referencedVariables(command: string, variables: Record<string, string>): string {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(variables)) {
    if (!new RegExp(`\\$\\{?${name}(?![A-Za-z0-9_])`).test(command)) continue;
    const shown =
      value.length <= VALUE_SHOWN_CHARS
        ? shellQuote(value)
        : `${shellQuote(value.slice(0, VALUE_SHOWN_CHARS))}… (${Buffer.byteLength(value)} bytes)`;
    lines.push(`${name}=${shown}`);
  }
  return lines.join(' ');
}

/**
 * Each case id of a batch with its index, what `parseBatchOutput` matches replies with. Batch
 * output lines are matched to cases by id, so a batch cannot hold one id twice.
 */
function caseIndex(requests: readonly ProviderRequest[]): Map<string, number> {
  const cases = new Map<string, number>();
  for (const { evalCaseId: id } of requests) {
    if (cases.has(id)) {
      throw new ProviderError(`the batch holds case id "${id}" twice`, {
        retryable: false,
        hint: 'batch output is matched to cases by id; give the cases unique ids',
      });
    }
    cases.set(id, cases.size);
  }
  return cases;
}

/** `{EVAL_DIR}` of a batch: the folder of its cases' eval file, when they share one. */
function batchEvalDir(requests: readonly ProviderRequest[]): { EVAL_DIR?: string } {
  const dir = requests[0]?.evalDir;
  if (dir === undefined || requests.some((request) => request.evalDir !== dir)) return {};
  return { EVAL_DIR: dir };
}

/**
 * The trace variables of a `trace: { source: otlp }` call, less those the target's own `env:`
 * sets: a target may choose, say, `OTEL_EXPORTER_OTLP_PROTOCOL: http/json`.
 */
function traceEnv(
  variables: Readonly<Record<string, string>>,
  own: Readonly<Record<string, string>>,
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(variables)) {
    if (!Object.hasOwn(own, name)) kept[name] = value;
  }
  return kept;
}
