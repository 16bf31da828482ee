import {
  callLabel,
  callTimeout,
  DEFAULT_MAX_OUTPUT_BYTES,
  describeCallTimeout,
  PROVIDER_SPECIFICATION_VERSION,
  type Provider,
  ProviderError,
  type ProviderOptions,
  type ProviderRequest,
  type ProviderResponse,
  type Sandbox,
} from '@agentv/core/provider-utils';
import { type CliProviderSettings, DEFAULT_CLI_TIMEOUT_SECONDS } from './cli-provider-settings.js';
import { throwIfAborted } from './command-failure.js';
import { withHealthcheck } from './healthcheck.js';
import { missedStartLimit, PersistentWorker } from './persistent-worker.js';
import { withoutAgentvVariables } from './placeholder-variables.js';
import { createRedactor } from './redact.js';
import { renderCommandTemplate } from './render-command-template.js';
import {
  openSandboxCallDir,
  requestInSandbox,
  type SandboxCallDir,
  sandboxCwd,
  shareCallFiles,
} from './sandbox-call.js';
import { workingDirectory } from './working-directory.js';

/** What the persistent provider needs besides the settings (`CliProviderOptions`' shape). */
export interface PersistentCliProviderOptions extends ProviderOptions {
  killGraceMs?: number;
}

/** One place in the pool: a worker number and the process that currently fills it. */
interface Slot {
  index: number;
  busy: boolean;
  worker?: PersistentWorker;
  /** Where the worker runs: its cwd on this machine, or its container and cwd inside. */
  place?: string;
  /**
   * The process being started for this slot and where (until it is ready): it belongs to the
   * slot, not to the case that asked for it, so a case that stops waiting (its budget ran out)
   * leaves it to load for the next case.
   */
  starting?: { place: string; worker: Promise<PersistentWorker> };
  /** The conversation whose turns this slot serves until it ends (its process keeps its state). */
  conversation?: string;
}

/** Where a case's worker must run: a folder of this machine, or a folder in a sandbox. */
interface Place {
  key: string;
  cwd: string;
  sandbox?: Sandbox;
}

/**
 * Creates the provider of a `cli` target with `mode: persistent`: its command
 * starts once per worker and answers case after case over JSON lines (one
 * request line on stdin, one response line on stdout, in the batch record
 * shape). Processes start lazily, one per case running at the same time, so
 * their number is the concurrency the run actually uses; a process serves one
 * case at a time. A case whose workspace runs in a sandbox (`workspace.docker`)
 * is answered by a process started in that sandbox (one per container, so a
 * pooled slot's container keeps its agent across cases), seeing the workspace
 * at `/workspace`; a process in a container that was replaced is replaced too.
 * A process that exits, times out or breaks the protocol is
 * killed (its process group) and replaced on the next case; crashes and
 * timeouts are retryable, protocol errors and interrupts are not. `close()`
 * gives every process EOF on stdin, then SIGTERM and SIGKILL after the grace
 * period.
 */
export function createPersistentCliProvider(
  settings: CliProviderSettings,
  options: PersistentCliProviderOptions,
): Provider {
  const { targetName } = options;
  const log = options.log ?? ((line: string) => console.error(line));
  const verbose = options.verbose === true || settings.verbose;
  const redact = createRedactor(settings.env, options.secretValues);
  // Validation allows no placeholders here; rendering turns `{{NAME}}` into a literal `{NAME}`.
  const { command } = renderCommandTemplate(settings.commandTemplate, {});
  // --agent-timeout wins over timeout_seconds (core's one rule for every provider); without
  // either, the cli default stops an agent that stops answering.
  const timeout = callTimeout(settings.timeoutSeconds, options, DEFAULT_CLI_TIMEOUT_SECONDS);
  if (verbose) log(`[cli:${targetName}] time limit per call: ${describeCallTimeout(timeout)}`);
  if (verbose && settings.startTimeoutSeconds !== undefined) {
    log(
      `[cli:${targetName}] each process is sent cases once it prints {"ready": true}, within ${settings.startTimeoutSeconds} s (start_timeout_seconds)`,
    );
  }
  const env = withoutAgentvVariables({ ...(options.env ?? process.env), ...settings.env });
  const slots: Slot[] = [];
  // Processes being started, stopped or killed; `close` waits until each is done.
  const ending = new Set<Promise<void>>();
  let closed = false;
  // Aborted by `close`: stops the processes still starting.
  const closing = new AbortController();
  // The first start that missed start_timeout_seconds: later starts fail with it at once.
  let startFailure: ProviderError | undefined;

  const track = (stopping: Promise<void>) => {
    ending.add(stopping);
    void stopping.finally(() => ending.delete(stopping));
  };

  /** The slot serving each conversation that has not ended. */
  const conversations = new Map<string, Slot>();

  /**
   * The slot of `conversation` when it has one; else an idle slot no other conversation
   * holds, preferring one whose process runs at `place`; a new one when all are busy.
   */
  const acquire = (place: string, conversation: string | undefined): Slot => {
    const held = conversation === undefined ? undefined : conversations.get(conversation);
    if (held !== undefined && !held.busy) {
      held.busy = true;
      return held;
    }
    const idle = slots.filter((slot) => !slot.busy && slot.conversation === undefined);
    const slot = idle.find((slot) => slot.worker?.alive && slot.place === place) ??
      idle.find((slot) => !slot.worker?.alive) ??
      idle[0] ?? { index: slots.length + 1, busy: false };
    if (!slots.includes(slot)) slots.push(slot);
    slot.busy = true;
    return slot;
  };

  /**
   * The slot's process, started (or replaced when it died or runs elsewhere) as needed;
   * `serving` names the case (and attempt) it is started for in verbose lines.
   */
  const workerFor = async (
    slot: Slot,
    place: Place,
    serving: string,
    signal: AbortSignal | undefined,
  ): Promise<PersistentWorker> => {
    const current = slot.worker;
    if (current?.alive && slot.place === place.key) return current;
    if (slot.starting?.place === place.key) return untilAborted(slot.starting.worker, signal);
    if (current) track(current.alive ? current.stop() : current.kill());
    slot.worker = undefined;
    slot.place = undefined;
    if (startFailure !== undefined) throw startFailure;
    const label = `[cli:${targetName}#${slot.index}]`;
    if (verbose) log(`${label} ${serving} starting: ${redact(command)}`);
    const worker = PersistentWorker.start({
      label,
      serving,
      command,
      cwd: place.cwd,
      // In a container: the target's own `env:`, nothing else of this machine's.
      env: place.sandbox === undefined ? env : settings.env,
      ...(place.sandbox === undefined ? {} : { sandbox: place.sandbox }),
      redact,
      maxOutputBytes: settings.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      ...(settings.startTimeoutSeconds === undefined
        ? {}
        : { startTimeoutMs: settings.startTimeoutSeconds * 1000 }),
      signal: closing.signal,
      ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
      ...(verbose ? { log } : {}),
    });
    const starting = { place: place.key, worker };
    slot.starting = starting;
    track(
      worker.then(
        async (started) => {
          if (slot.starting === starting) slot.starting = undefined;
          if (closed) {
            await started.kill();
            return;
          }
          slot.worker = started;
          slot.place = place.key;
        },
        (error: unknown) => {
          if (slot.starting === starting) slot.starting = undefined;
          if (missedStartLimit(error)) startFailure ??= laterStartsError(error);
        },
      ),
    );
    const started = await untilAborted(worker, signal);
    if (closed) throw stoppedError();
    return started;
  };

  /** Where `request`'s worker runs. */
  const placeOf = (request: ProviderRequest): Place => {
    const sandbox = request.sandbox;
    if (sandbox !== undefined) {
      const cwd = sandboxCwd(settings.cwd);
      return { key: `sandbox ${sandbox.id} ${cwd}`, cwd, sandbox };
    }
    // Not the case's workspace: a process serves many cases, each in its own workspace, which
    // its request line names (`workspace`); starting one per workspace would defeat the mode.
    const cwd = workingDirectory(settings, { evalDir: request.evalDir });
    return { key: cwd, cwd };
  };

  const invoke = async (request: ProviderRequest): Promise<ProviderResponse> => {
    throwIfAborted(request.signal);
    if (closed) throw stoppedError();
    const place = placeOf(request);
    const conversation = request.conversation?.id;
    const slot = acquire(place.key, conversation);
    if (conversation !== undefined && slot.conversation === undefined) {
      // Every turn of the conversation goes to this slot, so its process can keep it in memory.
      slot.conversation = conversation;
      conversations.set(conversation, slot);
    }
    let call: SandboxCallDir | undefined;
    try {
      const worker = await workerFor(slot, place, callLabel(request), request.signal);
      let asked = request;
      if (place.sandbox !== undefined) {
        // The case's files go through the exchange folder; the request names /workspace.
        const files = request.guidelineFiles.length + request.inputFiles.length > 0;
        call =
          files && place.sandbox.exchange ? await openSandboxCallDir(place.sandbox) : undefined;
        asked = await requestInSandbox(request, call);
        if (call !== undefined) await shareCallFiles(call);
      }
      const answer = await worker.ask(asked, timeout);
      return {
        ...answer.response,
        durationMs: answer.response.durationMs ?? answer.wallTimeMs,
        raw: {
          command: redact(command),
          cwd: place.cwd,
          worker: slot.index,
          ...(answer.pid === undefined ? {} : { pid: answer.pid }),
          ...(place.sandbox === undefined ? {} : { container: place.sandbox.id.slice(0, 12) }),
          wallTimeMs: answer.wallTimeMs,
        },
      };
    } catch (error) {
      // A worker that failed is being killed; `close` must wait for it.
      const worker = slot.worker;
      if (worker && !worker.alive) track(worker.kill());
      throw error;
    } finally {
      slot.busy = false;
      await call?.remove();
    }
  };

  const endConversation = (id: string) => {
    const slot = conversations.get(id);
    if (slot === undefined) return;
    conversations.delete(id);
    slot.conversation = undefined;
  };

  const close = async () => {
    closed = true;
    closing.abort();
    for (const slot of slots) {
      const worker = slot.worker;
      slot.worker = undefined;
      if (worker) track(worker.alive ? worker.stop() : worker.kill());
    }
    while (ending.size > 0) await Promise.allSettled([...ending]);
  };

  const provider: Provider = {
    specificationVersion: PROVIDER_SPECIFICATION_VERSION,
    id: `cli:${targetName}`,
    kind: 'cli',
    targetName,
    invoke,
    endConversation,
    close,
  };
  return withHealthcheck(provider, settings, {
    redact,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
  });
}

/** `promise`, or a rejection as soon as `signal` aborts (what `promise` does then is left to it). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(interruptedError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(interruptedError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function interruptedError(): ProviderError {
  return new ProviderError(
    'the case was stopped while its persistent agent was loading: the run was interrupted',
    { retryable: false },
  );
}

/** The error of every start after one that missed its limit: the same cause, said at once. */
function laterStartsError(first: ProviderError): ProviderError {
  return new ProviderError(
    `${first.message} (a process of this target did not print its ready line in time; no more are started this run)`,
    {
      retryable: false,
      ...(first.hint === undefined ? {} : { hint: first.hint }),
      failureClass: 'timeout',
    },
  );
}

function stoppedError(): ProviderError {
  return new ProviderError('the persistent agent was not started: the run has ended', {
    retryable: false,
  });
}
