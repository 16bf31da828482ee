import { rm } from 'node:fs/promises';
import {
  callLabel,
  callTimeout,
  createSecretMask,
  estimateCostUsd,
  formatBytes,
  makeTempDir,
  outputLimitError,
  PROVIDER_SPECIFICATION_VERSION,
  type Provider,
  ProviderError,
  type ProviderOptions,
  type ProviderRequest,
  type ProviderResponse,
  SANDBOX_WORKSPACE,
  stderrSummary,
} from '@agentv/core/provider-utils';
import type { AgentAdapter, AgentFailure, AgentHome, AgentSpend } from './agent-adapter.js';
import { agentFailureError, type FailureContext } from './agent-errors.js';
import {
  createAgentHome,
  createAgentHomeSync,
  openAgentHome,
  removeAgentHome,
} from './agent-home.js';
import { compareVersions, readAgentVersion } from './agent-version.js';
import { findExecutable } from './find-executable.js';
import { checkInSandbox, sandboxPathOf, startInSandbox } from './in-sandbox.js';
import { type AgentProcess, runAgent } from './run-agent.js';
import type { CodingAgentSettings } from './settings.js';

/** Variables of the run's environment an agent gets besides its own: locale, certificates, proxies. */
const PASSED_VARIABLES = [
  'PATH',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TERM',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
];

/** Used config homes kept for removal while a later agent runs, at most. */
const MAX_USED_HOMES = 8;

/** What a coding-agent provider needs besides its adapter and settings. */
export interface CodingAgentProviderOptions extends ProviderOptions {
  /** The target's `baseDir`: a relative `executable` resolves against it. */
  baseDir: string;
}

/**
 * A provider that runs `adapter`'s CLI once per case: in the case's workspace (else an empty
 * folder of its own), with a config home of its own (`createAgentHome`), its events read as they
 * arrive into the trace, its raw stream kept as the transcript, and every failure turned into a
 * case error naming the agent. The health check finds the CLI and checks its version.
 */
export function createCodingAgentProvider(
  adapter: AgentAdapter,
  settings: CodingAgentSettings,
  options: CodingAgentProviderOptions,
): Provider {
  const runEnv = options.env ?? process.env;
  const command = settings.executable ?? adapter.executable;
  const secrets = [...(options.secretValues ?? [])];
  if (settings.apiKey !== undefined) secrets.push(settings.apiKey);
  const secretMask = createSecretMask(secrets);
  const mask = (text: string) => secretMask?.text(text) ?? text;
  const timeout = callTimeout(settings.timeoutSeconds, options);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const baseEnv: Record<string, string> = {};
  for (const name of PASSED_VARIABLES) {
    const value = runEnv[name];
    if (value !== undefined) baseEnv[name] = value;
  }
  let checked: Promise<string> | undefined;
  /** Config homes and work folders of finished calls still being removed; `close` waits for them. */
  const removing = new Set<Promise<unknown>>();
  const removeLater = (removal: Promise<unknown>) => {
    removing.add(removal);
    void removal.then(() => removing.delete(removal));
  };
  /**
   * Config homes on this machine made while an agent ran, for the calls to come: making one
   * (seven folders) is then off the way from one call's end to the next agent's start.
   */
  const spareHomes: AgentHome[] = [];
  /** Config homes of finished calls, removed once the next agent has started (or at `close`). */
  const usedHomes: AgentHome[] = [];
  /** Calls on this machine between taking a home and their end. */
  let hostCalls = 0;
  let closed = false;
  const removeUsedHomes = () => {
    for (const used of usedHomes.splice(0)) removeLater(removeAgentHome(used));
  };
  /** While an agent runs: the next call's home, and the removal of what earlier calls left. */
  const whileAgentRuns = () => {
    removeUsedHomes();
    if (closed || spareHomes.length >= hostCalls) return;
    try {
      spareHomes.push(createAgentHomeSync(adapter.kind));
    } catch {
      // The next call makes its own, and reports what stops it.
    }
  };

  const failureContext = (extra: Partial<FailureContext> = {}): FailureContext => ({
    settings,
    command,
    ...extra,
  });
  /** The CLI's path, found and version-checked once; rejects with the case error. */
  const locate = () => {
    checked ??= (async () => {
      const executable = findExecutable(command, baseEnv.PATH, options.baseDir);
      if (executable === undefined) {
        throw agentFailureError(adapter, { kind: 'not_installed' }, failureContext());
      }
      const version = await readAgentVersion(adapter, executable, baseEnv, options.baseDir);
      if (version !== undefined && compareVersions(version, adapter.minVersion) < 0) {
        throw agentFailureError(adapter, { kind: 'version' }, failureContext({ version }));
      }
      return executable;
    })();
    return checked;
  };

  async function invoke(request: ProviderRequest): Promise<ProviderResponse> {
    const sandbox = request.sandbox;
    const exchange = sandbox?.exchange;
    if (sandbox !== undefined && exchange === undefined) {
      throw new ProviderError(
        `${adapter.displayName} cannot run in this sandbox: it has no exchange folder for the agent's config home`,
        {
          retryable: false,
          hint: 'run the case through the workspace manager (`agentv eval`, runEvaluation), which gives its containers one',
        },
      );
    }
    // In a sandbox the CLI is the image's: found on its PATH (or at `executable` inside) by the engine.
    const executable = sandbox === undefined ? await locate() : command;
    const label = callLabel(request);
    const started = Date.now();
    const ownWorkdir =
      sandbox === undefined && request.workspace === undefined
        ? await makeTempDir(`${adapter.kind}-work`)
        : undefined;
    const workdir = sandbox !== undefined ? SANDBOX_WORKSPACE : (request.workspace ?? ownWorkdir!);
    const home =
      exchange === undefined
        ? (spareHomes.pop() ?? (await createAgentHome(adapter.kind)))
        : await createAgentHome(adapter.kind, exchange.hostPath);
    if (exchange === undefined) hostCalls++;
    try {
      const call = { settings, prompt: request.question, workdir, home, runEnv };
      let invocation = await adapter.prepare(call);
      let env: Record<string, string>;
      let start: ((command: string[]) => Promise<AgentProcess>) | undefined;
      if (sandbox !== undefined && exchange !== undefined) {
        // The home was written on this machine; the agent finds it where the sandbox mounts it.
        await openAgentHome(home.root);
        const inside = (value: string) => sandboxPathOf(value, exchange.hostPath, exchange.path);
        const insideAll = (values: Record<string, string>) =>
          Object.fromEntries(Object.entries(values).map(([name, value]) => [name, inside(value)]));
        invocation = { ...invocation, args: invocation.args.map(inside) };
        env = {
          ...insideAll(home.env),
          AGENTV_WORKSPACE: SANDBOX_WORKSPACE,
          ...insideAll(invocation.env),
          ...settings.env,
        };
        await checkInSandbox(adapter, sandbox, executable, env);
        const sandboxEnv = env;
        start = (argv) => startInSandbox(adapter, sandbox, argv, sandboxEnv);
      } else {
        env = {
          ...baseEnv,
          ...home.env,
          ...(request.workspace === undefined ? {} : { AGENTV_WORKSPACE: request.workspace }),
          ...invocation.env,
          ...settings.env,
        };
      }
      if (options.verbose) {
        log(
          `[${options.targetName}] ${label}: ${mask([executable, ...invocation.args].join(' '))} (in ${workdir}${sandbox === undefined ? '' : ` of sandbox ${sandbox.id.slice(0, 12)}`})`,
        );
      }
      const reader = adapter.createReader(call);
      const onUsage = request.onUsage;
      const reportSpend =
        onUsage === undefined || reader.spent === undefined
          ? undefined
          : spendReporter(reader.spent.bind(reader), settings.model, onUsage);
      const run = await runAgent({
        executable,
        ...(start === undefined ? {} : { start }),
        invocation,
        env,
        cwd: workdir,
        reader,
        ...(reportSpend === undefined ? {} : { onEvent: reportSpend }),
        displayName: adapter.displayName,
        ...(timeout.seconds === undefined ? {} : { timeoutMs: timeout.seconds * 1000 }),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        maxOutputBytes: settings.maxOutputBytes,
        mask,
        onStarted: whileAgentRuns,
      });
      const durationMs = Date.now() - started;
      const stderr = mask(stderrSummary(run.stderr));
      if (options.verbose) {
        log(
          `[${options.targetName}] ${label}: exit ${run.exitCode ?? run.signalName} after ${durationMs} ms${stderr ? `; stderr: ${stderr}` : ''}`,
        );
      }
      const context = failureContext({
        ...(run.exitCode === undefined ? {} : { exitCode: run.exitCode }),
        ...(stderr === '' ? {} : { stderr }),
        transcript: run.transcript,
        ...(timeout.seconds === undefined
          ? {}
          : { timeout: { seconds: timeout.seconds, hint: timeout.hint } }),
      });
      if (run.aborted)
        throw new ProviderError(`${adapter.displayName} was stopped: the run was interrupted`, {
          retryable: false,
          transcript: run.transcript,
          // What the agent did before it was stopped stays on a case stopped by its budget.
          trace: secretMask ? secretMask.deep(run.outcome.trace) : run.outcome.trace,
        });
      if (run.outputExceeded !== undefined) {
        const error = outputLimitError(
          `${adapter.displayName}'s event stream passed max_output_bytes (${formatBytes(settings.maxOutputBytes)}): it had written ${formatBytes(run.outputExceeded)} when it was stopped`,
        );
        throw Object.assign(error, { transcript: run.transcript });
      }
      if (run.killedBecause !== undefined) {
        throw new ProviderError(`${adapter.displayName} was killed: ${run.killedBecause}`, {
          retryable: false,
          transcript: run.transcript,
          hint: 'raise workspace.docker.memory, or give the agent a smaller task',
        });
      }
      if (run.timedOut) throw agentFailureError(adapter, { kind: 'timeout' }, context);
      const { outcome } = run;
      const failure: AgentFailure | undefined =
        outcome.failure ?? (outcome.answer === undefined ? { kind: 'no_answer' } : undefined);
      if (failure !== undefined) {
        throw agentFailureError(
          adapter,
          failure.detail === undefined ? failure : { ...failure, detail: mask(failure.detail) },
          context,
        );
      }
      const model = outcome.model ?? settings.model;
      const costUsd =
        outcome.costUsd ??
        (model === undefined || outcome.usage === undefined
          ? undefined
          : estimateCostUsd(model, outcome.usage));
      const response: ProviderResponse = {
        text: outcome.answer ?? '',
        trace: secretMask ? secretMask.deep(outcome.trace) : outcome.trace,
        durationMs,
        transcript: run.transcript,
        raw: {
          command: mask([executable, ...invocation.args].join(' ')),
          exit_code: run.exitCode ?? null,
          ...(stderr ? { stderr } : {}),
        },
      };
      if (outcome.usage !== undefined) response.usage = outcome.usage;
      if (costUsd !== undefined) response.costUsd = costUsd;
      if (outcome.warnings !== undefined && outcome.warnings.length > 0) {
        response.warnings = outcome.warnings.map(mask);
      }
      if (secretMask) response.text = secretMask.text(response.text);
      return response;
    } finally {
      // Off the case's path: neither its grading nor the next call's start waits for what the
      // agent left in its home (Codex writes a hundred files there); it is removed while the
      // next agent runs. The agent's temp folders are named after this process, so the
      // watchdog or the next run removes them if this one is killed first.
      if (exchange !== undefined) {
        removeLater(removeAgentHome(home));
      } else {
        hostCalls--;
        usedHomes.push(home);
        if (closed || usedHomes.length >= MAX_USED_HOMES) removeUsedHomes();
      }
      if (ownWorkdir !== undefined)
        removeLater(rm(ownWorkdir, { recursive: true, force: true }).catch(() => {}));
    }
  }

  return {
    specificationVersion: PROVIDER_SPECIFICATION_VERSION,
    id: `${adapter.kind}:${options.targetName}`,
    kind: adapter.kind,
    targetName: options.targetName,
    invoke,
    close: async () => {
      closed = true;
      usedHomes.push(...spareHomes.splice(0));
      removeUsedHomes();
      await Promise.all(removing);
    },
    healthcheck: async (use) => {
      // Cases that all run in a sandbox use the image's CLI, checked in its first sandbox.
      if (use?.onHost === false) return;
      await locate();
    },
  };
}

/**
 * Reports a run's running totals through the request's `onUsage` whenever they change: the
 * agent's own cost when it gives one, else `usage` priced with the price table (the model the
 * agent names, else the target's).
 */
function spendReporter(
  spent: () => AgentSpend | undefined,
  targetModel: string | undefined,
  onUsage: NonNullable<ProviderRequest['onUsage']>,
): () => void {
  let last = '';
  return () => {
    const now = spent();
    if (now === undefined) return;
    const model = now.model ?? targetModel;
    const costUsd =
      now.costUsd ?? (model === undefined ? undefined : estimateCostUsd(model, now.usage));
    const key = JSON.stringify([now.usage, costUsd]);
    if (key === last) return;
    last = key;
    onUsage({ ...now.usage }, costUsd);
  };
}
