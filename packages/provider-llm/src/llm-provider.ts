import {
  type ChatMessage,
  callLabel,
  callTimeout,
  DEFAULT_MAX_OUTPUT_BYTES,
  estimateCostUsd,
  fetchWithBodyLimit,
  formatBytes,
  isProviderError,
  outputLimitError,
  PROVIDER_SPECIFICATION_VERSION,
  type Provider,
  type ProviderContext,
  ProviderError,
  type ProviderRequest,
  type ProviderResponse,
  type TokenUsage,
} from '@agentv/core/provider-utils';
import type { LanguageModel, LanguageModelUsage, ModelMessage, ProviderMetadata } from 'ai';
import { createLlmCache, llmCacheKey } from './llm-cache.js';
import {
  likelyKeyVariable,
  missingCredentialsError,
  refusedCredentialsHint,
} from './llm-credentials.js';
import { LLM_KINDS } from './llm-kinds.js';
import type { LlmProviderSettings } from './llm-provider-settings.js';
import { loadLanguageModel } from './load-language-model.js';
import { reportedCostUsd } from './reported-cost-usd.js';
import { type FailedCall, toProviderError } from './to-provider-error.js';

/**
 * How an LLM provider runs, besides its settings: the run's context (`cacheDir`
 * undefined turns caching off; `env` is searched for the variable holding the
 * key so a 401 hint can name it; `verbose` logs every call) and the target's limits.
 */
export interface LlmProviderOptions extends ProviderContext {
  /** The `provider:` value the target used (an alias such as `google`); default the settings' kind. */
  kind?: string;
  /**
   * The target's per-call time limit in seconds (`timeout_seconds`); `defaultTimeoutSeconds`
   * (`--agent-timeout`) wins over it (core's `callTimeout`). None when both are undefined.
   */
  timeoutSeconds?: number;
  /** Most bytes of a response body (the target's `max_output_bytes`). Default core's `DEFAULT_MAX_OUTPUT_BYTES`. */
  maxOutputBytes?: number;
  /** Values to mask in errors and logs besides the API key (the target's `${{ VAR }}` values). */
  secrets?: readonly string[];
}

/**
 * Creates a provider that answers each case with one call to a chat model
 * through the Vercel AI SDK. The chat prompt goes out as structured messages;
 * the response carries `usage`, `costUsd` (when the model's price is known)
 * and `durationMs`. Failures are `ProviderError`s the orchestrator retries
 * (the SDK's own retries are off). With a `cacheDir`, answers are stored on
 * disk and a repeated call is answered from there with `cached: true`.
 */
export function createLlmProvider(
  targetName: string,
  settings: LlmProviderSettings,
  options: LlmProviderOptions = {},
): Provider {
  const kind = options.kind ?? settings.kind;
  const id = `${kind}:${targetName}`;
  const timeoutLimit = callTimeout(options.timeoutSeconds, options);
  const timeoutSeconds = timeoutLimit.seconds;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const verbose = (line: string) => {
    if (options.verbose) log(`[${id}] ${line}`);
  };
  const cache =
    options.cacheDir === undefined
      ? undefined
      : createLlmCache(options.cacheDir, (message) => log(`warning: ${message}`));
  const secrets = [
    settings.apiKey,
    settings.secretAccessKey,
    settings.sessionToken,
    ...(options.secrets ?? []),
  ].filter((value): value is string => typeof value === 'string' && value.length > 0);
  const failedCall: FailedCall = {
    kind: settings.kind,
    targetName,
    model: settings.model,
    baseUrl: settings.baseUrl,
    keyVariable:
      variableHolding(settings, options.env ?? process.env) ?? likelyKeyVariable(settings.kind),
    authHint: refusedCredentialsHint(settings.kind, settings.apiKey, targetName),
    secrets,
  };
  let model: Promise<LanguageModel> | undefined;
  const maxBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  // The SDK reads bodies of up to 2 GiB; its requests go through this fetch, which closes the
  // connection once a body passes max_output_bytes.
  const limitedFetch = fetchWithBodyLimit(maxBytes, (bytes) =>
    outputLimitError(
      `${kind} target "${targetName}": the response passed max_output_bytes (${formatBytes(maxBytes)}) after ${formatBytes(bytes)}; the request was aborted`,
    ),
  );

  const invoke = async (request: ProviderRequest): Promise<ProviderResponse> => {
    const started = Date.now();
    const messages = toModelMessages(request);
    const parameters = {
      temperature: settings.temperature,
      maxOutputTokens: settings.maxOutputTokens,
      thinkingBudget: settings.thinkingBudget,
      apiVersion: settings.apiVersion,
      resourceName: settings.resourceName,
      region: settings.region,
      project: settings.project,
      location: settings.location,
    };
    const key =
      cache &&
      llmCacheKey({
        kind: settings.kind,
        model: settings.model,
        baseUrl: settings.baseUrl,
        messages,
        parameters,
      });
    // A refreshed request (a judge re-asking after an unusable reply) skips the stored answer and
    // replaces it with the new one.
    if (cache && key && request.refresh !== true) {
      const hit = await cache.read(key);
      if (hit) {
        verbose(`${callLabel(request)}: answered from the cache`);
        // Nothing was spent on this answer, so it has no cost; usage is the original call's.
        return { ...hit, durationMs: Date.now() - started, cached: true };
      }
    }

    model ??= loadLanguageModel(settings, limitedFetch);
    const [languageModel, { generateText }] = await Promise.all([model, import('ai')]);
    const timeout = new AbortController();
    const timer =
      timeoutSeconds === undefined
        ? undefined
        : setTimeout(() => timeout.abort(), timeoutSeconds * 1000);
    const abortSignal = request.signal
      ? AbortSignal.any([request.signal, timeout.signal])
      : timeout.signal;
    // The target's own pricing wins; else what the service says the call cost; else the table.
    const costOf = (usage: TokenUsage, metadata: ProviderMetadata | undefined) =>
      (settings.pricing === undefined ? reportedCostUsd(metadata) : undefined) ??
      estimateCostUsd(settings.model, usage, settings.pricing);
    let spent: { usage?: TokenUsage; costUsd?: number } = {};
    let result: Awaited<ReturnType<typeof generateText>>;
    try {
      result = await generateText({
        model: languageModel,
        messages,
        // The system message is the eval author's (guidelines included), not outside input.
        allowSystemInMessages: true,
        temperature: settings.temperature,
        maxOutputTokens: settings.maxOutputTokens,
        maxRetries: 0,
        abortSignal,
        // Running totals after each model request: the case's budget aborts `abortSignal` once
        // they cross it, and no further request is made.
        onStepFinish: (step) => {
          const usage = toTokenUsage(step.usage);
          if (usage === undefined) return;
          spent = addSpend(spent, usage, costOf(usage, step.providerMetadata));
          request.onUsage?.(spent.usage, spent.costUsd);
        },
        ...(settings.thinkingBudget === undefined
          ? {}
          : {
              providerOptions: {
                anthropic: { thinking: { type: 'enabled', budgetTokens: settings.thinkingBudget } },
              },
            }),
      });
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      const tooLong = findProviderError(error);
      const failure =
        tooLong ??
        (timeout.signal.aborted
          ? new ProviderError(
              `${kind} target "${targetName}": no answer within ${timeoutSeconds} s`,
              { retryable: true, hint: timeoutLimit.hint },
            )
          : (missingCredentialsError(error, settings.kind, targetName) ??
            toProviderError(error, failedCall)));
      // Every failed attempt, as the http provider logs its statuses: the orchestrator then logs
      // the wait before the next one. The message is masked already.
      verbose(
        `${callLabel(request)}: failed after ${Date.now() - started} ms${failure.retryable ? '' : ' (not retryable)'}: ${failure.message}`,
      );
      throw failure;
    } finally {
      clearTimeout(timer);
    }

    const usage = toTokenUsage(result.totalUsage ?? result.usage);
    const costUsd =
      spent.usage === undefined ? usage && costOf(usage, result.providerMetadata) : spent.costUsd;
    const durationMs = Date.now() - started;
    verbose(
      `${callLabel(request)}: ${settings.model} answered in ${durationMs} ms` +
        (usage ? ` (${usage.inputTokens ?? '?'} in, ${usage.outputTokens ?? '?'} out tokens)` : ''),
    );
    if (cache && key)
      await cache.write(key, {
        text: result.text,
        ...(usage ? { usage: definedOnly(usage) } : {}),
      });
    return {
      text: result.text,
      ...(usage === undefined ? {} : { usage }),
      ...(costUsd === undefined ? {} : { costUsd }),
      durationMs,
    };
  };

  return { specificationVersion: PROVIDER_SPECIFICATION_VERSION, id, kind, targetName, invoke };
}

/** The `ProviderError` the SDK wrapped (our fetch's `outputLimitError`), following `cause`s. */
function findProviderError(error: unknown): ProviderError | undefined {
  const seen = new Set<unknown>();
  let current = error;
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    if (isProviderError(current)) return current;
    seen.add(current);
    const next = current as { cause?: unknown; lastError?: unknown };
    current = next.cause ?? next.lastError;
  }
  return undefined;
}

/** The chat prompt as AI SDK messages; tool turns become assistant text, since no call ids exist. */
export function toModelMessages(request: ProviderRequest): ModelMessage[] {
  const source: ChatMessage[] =
    request.chatPrompt.length > 0
      ? request.chatPrompt
      : [{ role: 'user', content: request.question }];
  return source.map((message): ModelMessage => {
    if (message.role === 'tool') {
      return { role: 'assistant', content: `@[${message.name ?? 'Tool'}]: ${message.content}` };
    }
    return { role: message.role, content: message.content };
  });
}

/** The SDK's usage as core's `TokenUsage` (`cachedTokens`: input tokens read from the prompt cache). */
function toTokenUsage(usage: LanguageModelUsage | undefined): TokenUsage | undefined {
  if (usage === undefined) return undefined;
  const mapped: TokenUsage = {};
  const set = (name: string, value: number | undefined) => {
    if (typeof value === 'number' && Number.isFinite(value)) mapped[name] = value;
  };
  set('inputTokens', usage.inputTokens);
  set('outputTokens', usage.outputTokens);
  set('totalTokens', usage.totalTokens);
  set('cachedTokens', usage.inputTokenDetails?.cacheReadTokens ?? usage.cachedInputTokens);
  set('reasoningTokens', usage.outputTokenDetails?.reasoningTokens ?? usage.reasoningTokens);
  return Object.keys(mapped).length > 0 ? mapped : undefined;
}

/** `spent` with one more model request's usage and cost added (cost unknown once any is). */
function addSpend(
  spent: { usage?: TokenUsage; costUsd?: number },
  usage: TokenUsage,
  costUsd: number | undefined,
): { usage: TokenUsage; costUsd?: number } {
  const total: TokenUsage = { ...spent.usage };
  for (const [key, count] of Object.entries(usage)) {
    if (count !== undefined) total[key] = (total[key] ?? 0) + count;
  }
  const cost =
    spent.usage === undefined
      ? costUsd
      : costUsd === undefined || spent.costUsd === undefined
        ? undefined
        : // Rounded so sums of float products do not print as 0.30000000000000004.
          Math.round((spent.costUsd + costUsd) * 1e9) / 1e9;
  return cost === undefined ? { usage: total } : { usage: total, costUsd: cost };
}

function definedOnly(usage: TokenUsage): Record<string, number> {
  return Object.fromEntries(
    Object.entries(usage).filter((entry): entry is [string, number] => entry[1] !== undefined),
  );
}

/** The name of an environment variable holding the target's key, for hints; never the value. */
function variableHolding(
  settings: LlmProviderSettings,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const key = settings.apiKey;
  if (key === undefined) return undefined;
  const preferred = LLM_KINDS[settings.kind].keyVariables.find((name) => env[name] === key);
  return preferred ?? Object.keys(env).find((name) => env[name] === key);
}
