import type { ProviderRequest } from './provider-request.js';
import type { ProviderResponse } from './provider-response.js';

/** The provider contract version this build of `@agentv/core` implements. */
export const PROVIDER_SPECIFICATION_VERSION = 'v1';

export type ProviderSpecificationVersion = typeof PROVIDER_SPECIFICATION_VERSION;

/**
 * The contract every provider implements. A provider answers eval cases for one
 * target. Failures are thrown (preferably as `ProviderError`); the orchestrator
 * turns them into that case's error result and applies the retry policy.
 */
export interface Provider {
  /**
   * The version of this contract the provider implements. Bumped when the
   * contract changes incompatibly; the registry refuses a provider written for
   * another version instead of running it against a contract it does not know.
   */
  readonly specificationVersion: ProviderSpecificationVersion;
  /** Unique id of this instance, e.g. `cli:my_agent`. */
  readonly id: string;
  /** The provider kind, as written in `provider:` of the target (`cli`, `mock`, ...). */
  readonly kind: string;
  /** The name of the target this provider serves. */
  readonly targetName: string;
  /** Answer one eval case. */
  invoke(request: ProviderRequest): Promise<ProviderResponse>;
  /** True when `invokeBatch` may be used for targets with `provider_batching: true`. */
  readonly supportsBatch?: boolean;
  /** Answer many cases in one call; the result has one response per request, in order. */
  invokeBatch?(requests: ProviderRequest[]): Promise<ProviderResponse[]>;
  /**
   * Check the provider is reachable; throws a `ProviderError` when it is not. Run once per
   * provider, before the first case; `use` says where its cases run.
   */
  healthcheck?(use?: HealthcheckUse): Promise<void>;
  /**
   * Called once when a conversation (`request.conversation.id`) ends, after its
   * last turn: a provider that kept something for it (a persistent agent's
   * worker) may let it go. Never rejects.
   */
  endConversation?(conversationId: string): void;
  /**
   * Release what the provider holds (processes it keeps running, connections).
   * `runEvaluation` calls it once when the run ends, finished or interrupted;
   * no `invoke` is made after it. Never rejects.
   */
  close?(): Promise<void>;
}

/** Where the cases a provider serves will run, for its health check. */
export interface HealthcheckUse {
  /**
   * False when every case of the run that uses the provider runs in a sandbox
   * (`workspace.docker`): what it would run on this machine need not be here.
   */
  onHost: boolean;
  /**
   * The eval file of the first case that uses the provider, when one does: a relative path
   * of the health check (its `cwd`) resolves against this file's folder, as a case's does.
   */
  evalFile?: string;
}
