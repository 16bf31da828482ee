import { readdirSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  callLabel,
  callTimeout,
  type Issue,
  makeTempDir,
  type Provider,
  type ProviderContext,
  ProviderError,
  type ProviderFactory,
  type ProviderRequest,
  type ProviderResponse,
  type ResolvedTarget,
  stderrExcerpt,
} from '@agentv/core';
import {
  CLI_SETTINGS_KEYS,
  type CliProviderSettings,
  checkCliUse,
  parseCliSettings,
  validateCliSettings,
} from './cli-provider-settings.js';
import { describeEnd, throwIfAborted, throwIfFailed } from './command-failure.js';
import { withHealthcheck } from './healthcheck.js';
import { parseBatchOutput } from './parse-batch-output.js';
import { parseCliOutput } from './parse-output.js';
import { createPersistentCliProvider } from './persistent-provider.js';
import { CALL_FILES, FILE_PLACEHOLDERS, preparePlaceholderValues } from './placeholder-values.js';
import { createRedactor } from './redact.js';
import {
  compileCommandTemplate,
  findPlaceholders,
  renderCommandTemplate,
} from './render-command-template.js';
import { writeRequestBundle } from './request-bundle.js';
import { type RunCommandOptions, runCommand } from './run-command.js';
import { workingDirectory } from './working-directory.js';

/** What `createCliProvider` needs besides the settings. */
export interface CliProviderOptions extends ProviderContext {
  /** The target this provider serves; named in ids, logs and health-check errors. */
  targetName: string;
  /** Time between SIGTERM and SIGKILL when a command is stopped. Default 2000 ms. */
  killGraceMs?: number;
  /** Values to mask besides `env`'s: the target's `${{ VAR }}` substitutions. */
  secretValues?: readonly string[];
}

/**
 * Creates a provider that answers each case by running `settings.commandTemplate`
 * (SPEC 4.2): placeholders substituted and shell-quoted, run through `/bin/sh`
 * in its own process group, the answer read from `{OUTPUT_FILE}` when the
 * template uses it, else from stdout, and parsed by `parseCliOutput`.
 *
 * `durationMs` is the agent's own `duration_ms` when it reports one, else the
 * measured wall time (always kept in `raw.wallTimeMs`). Values of `settings.env`
 * are masked as `***` in logs, `raw` and error messages.
 *
 * `invoke` throws `ProviderError`: retryable for a non-zero exit, a timeout, a
 * missing output file or a transient start failure (EAGAIN, EMFILE, ...); not
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
  const used = new Set(findPlaceholders(settings.commandTemplate));
  const needsTempDir = FILE_PLACEHOLDERS.some((name) => used.has(name));
  // The files a call's temp dir holds once the command ran (those it did not write are skipped).
  const callFiles = [
    ...(used.has('PROMPT_FILE') ? [CALL_FILES.prompt] : []),
    ...(used.has('INPUT_FILE') ? [CALL_FILES.input] : []),
    ...(used.has('OUTPUT_FILE') ? [CALL_FILES.output] : []),
  ];
  // --agent-timeout wins over timeout_seconds (core's one rule for every provider).
  const timeout = callTimeout(settings.timeoutSeconds, options);
  const timeoutSeconds = timeout.seconds;
  const prefix = `[cli:${targetName}]`;
  // The project's environment (shell over `.env`) when the app passes it, else the process's;
  // built once and handed to every command as its whole environment.
  const env = { ...(options.env ?? process.env), ...settings.env };
  // Everything a call's run needs besides its command, cwd and signal: the same for every case.
  const runOptions = {
    env,
    ...(timeoutSeconds === undefined ? {} : { timeoutMs: timeoutSeconds * 1000 }),
    ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
  };
  const render = compileCommandTemplate(settings.commandTemplate);
  const callDirs = needsTempDir ? createCallDirs() : undefined;
  // Cases of one eval file share their working directory: resolved once per eval folder.
  const cwds = new Map<string | undefined, string>();
  const cwdFor = (request: Pick<ProviderRequest, 'evalDir'>) => {
    let cwd = cwds.get(request.evalDir);
    if (cwd === undefined) {
      cwd = workingDirectory(settings, request);
      cwds.set(request.evalDir, cwd);
    }
    return cwd;
  };

  /**
   * Runs a rendered command with the target's cwd, env and timeout, logging it
   * when verbose; throws for a failed run. Returns the outcome, the redacted
   * stderr excerpt and the diagnostics every response carries in `raw`.
   */
  const execute = async (
    command: string,
    label: string,
    request: Pick<ProviderRequest, 'signal' | 'evalDir'>,
  ) => {
    const signal = request.signal;
    const cwd = cwdFor(request);
    // With several workers lines interleave: every line names its case and attempt.
    const tag = `${prefix} ${label}`;
    if (verbose) {
      log(`${tag}: ${redact(command)}`);
      log(`${tag} cwd: ${cwd}`);
    }
    const run: RunCommandOptions = { ...runOptions, command, cwd };
    if (signal !== undefined) run.signal = signal;
    const outcome = await runCommand(run);
    const stderr = redact(outcome.stderr);
    if (verbose) {
      log(`${tag} ${describeEnd(outcome, timeoutSeconds)} after ${outcome.durationMs} ms`);
      for (const line of stderr.trimEnd().split(/\r?\n/)) {
        if (line.trim()) log(`${tag} stderr: ${line}`);
      }
    }
    throwIfFailed(outcome, stderr, timeout, verbose);
    const raw = {
      command: redact(command),
      cwd,
      exitCode: outcome.exitCode,
      stderr: stderrExcerpt(stderr),
      wallTimeMs: outcome.durationMs,
    };
    return { outcome, raw };
  };

  const invoke = async (request: ProviderRequest): Promise<ProviderResponse> => {
    throwIfAborted(request.signal);
    const tempDir = await callDirs?.create();
    try {
      const { values, outputFile } = await preparePlaceholderValues(
        request,
        settings,
        used,
        tempDir,
      );
      const command = render(values);
      const { outcome, raw } = await execute(command, callLabel(request), request);
      const content = outputFile === undefined ? outcome.stdout : readOutputFile(outputFile);
      const response = parseCliOutput(content);
      return { ...response, durationMs: response.durationMs ?? outcome.durationMs, raw };
    } finally {
      if (tempDir !== undefined) await callDirs?.release(tempDir, callFiles);
    }
  };

  // Batch mode: one run answers every request; the bundle goes to {INPUT_FILE} and
  // the answers come back as JSONL in {OUTPUT_FILE}.
  const invokeBatch = async (requests: ProviderRequest[]): Promise<ProviderResponse[]> => {
    const first = requests[0];
    if (first === undefined) return [];
    throwIfAborted(first.signal);
    const ids = requests.map((request) => request.evalCaseId);
    assertUniqueIds(ids);
    const tempDir = await makeTempDir('cli-batch');
    try {
      const inputFile = join(tempDir, 'input.jsonl');
      const outputFile = join(tempDir, 'output.jsonl');
      await writeRequestBundle(inputFile, requests);
      const command = renderCommandTemplate(settings.commandTemplate, {
        EVAL_ID: 'batch',
        ATTEMPT: String(first.attempt),
        REPEAT: String(first.repeat ?? 1),
        INPUT_FILE: inputFile,
        OUTPUT_FILE: outputFile,
      });
      const { raw } = await execute(
        command,
        `batch of ${requests.length} attempt ${first.attempt + 1}`,
        first,
      );
      const byId = await parseBatchOutput(outputFile, ids);
      const batchRaw = { ...raw, batchSize: requests.length };
      // The parsed responses are this call's own: each gets `raw` set, not copied with it.
      return ids.map((id) => {
        const response = byId.get(id)!;
        response.raw = batchRaw;
        return response;
      });
    } finally {
      await rm(tempDir, { recursive: true, force: true });
    }
  };

  const provider: Provider = {
    specificationVersion: 'v1',
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

/** The `cli` provider factory, registered by the app under `provider: cli`. */
export const cliProviderFactory: ProviderFactory = {
  kind: 'cli',
  settingsKeys: CLI_SETTINGS_KEYS,
  validate(target: ResolvedTarget): Issue[] {
    return validateCliSettings(target);
  },
  checkUse: checkCliUse,
  create(target: ResolvedTarget, context: ProviderContext): Provider {
    return createCliProvider(parseCliSettings(target), {
      ...context,
      targetName: target.name,
      ...(target.secretValues === undefined ? {} : { secretValues: target.secretValues }),
    });
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

/** One synchronous read (open, stat, read, close: no directory entry changes, microseconds). */
function readOutputFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ProviderError(`could not read {OUTPUT_FILE} (${path}): ${reason}`, {
        retryable: true,
        cause: error,
      });
    }
    throw new ProviderError(
      `the command exited with code 0 but did not write {OUTPUT_FILE} (${path})`,
      {
        retryable: true,
        hint: 'make the command write its answer to the path it is given for {OUTPUT_FILE}, or remove {OUTPUT_FILE} from command_template to read stdout instead',
      },
    );
  }
}

/** Batch output lines are matched to cases by id, so a batch cannot hold one id twice. */
function assertUniqueIds(ids: readonly string[]): void {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) {
      throw new ProviderError(`the batch holds case id "${id}" twice`, {
        retryable: false,
        hint: 'batch output is matched to cases by id; give the cases unique ids',
      });
    }
    seen.add(id);
  }
}
