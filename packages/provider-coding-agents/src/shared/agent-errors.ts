import { ProviderError } from '@agentv/core/provider-utils';
import type { AgentAdapter, AgentFailure } from './agent-adapter.js';
import type { CodingAgentSettings } from './settings.js';

/** What a failure's message may name besides the agent and its detail. */
export interface FailureContext {
  settings: CodingAgentSettings;
  /** The command run (the target's `executable` or the adapter's default). */
  command: string;
  exitCode?: number;
  /** A one-line excerpt of the agent's stderr, masked. */
  stderr?: string;
  /** The call's time limit in seconds and what would raise it, for `timeout`. */
  timeout?: { seconds: number; hint: string };
  /** Version found and required, for `version`. */
  version?: string;
  /** The agent's raw event stream so far, masked. */
  transcript?: string;
}

/**
 * The case error of a failed call: what happened, naming the agent (and the npm package,
 * model or endpoint where they are the cause), with a hint of what to do. Not retryable
 * when another attempt would fail the same way (not installed, old version, auth, model).
 */
export function agentFailureError(
  adapter: AgentAdapter,
  failure: AgentFailure,
  context: FailureContext,
): ProviderError {
  const agent = adapter.displayName;
  const detail = failure.detail ? `: ${failure.detail}` : '';
  const where = context.settings.baseUrl ? ` at ${context.settings.baseUrl}` : '';
  const exit = context.exitCode === undefined ? '' : ` (exit code ${context.exitCode})`;
  const stderr = context.stderr ? `; stderr: ${context.stderr}` : '';
  const fail = (message: string, hint: string, retryable: boolean) =>
    new ProviderError(message, {
      hint,
      retryable,
      // Not installed: the agent could not be started at all, as a failed spawn.
      ...(failure.kind === 'timeout'
        ? { failureClass: 'timeout' as const }
        : failure.kind === 'not_installed'
          ? { failureClass: 'infra' as const }
          : {}),
      ...(context.exitCode === undefined ? {} : { exitCode: context.exitCode }),
      ...(context.stderr === undefined ? {} : { stderr: context.stderr }),
      ...(context.transcript === undefined ? {} : { transcript: context.transcript }),
    });
  switch (failure.kind) {
    case 'not_installed':
      return fail(
        `${agent} is not installed: "${context.command}" was not found${context.command.includes('/') ? '' : ' on PATH'}`,
        `install it with npm i -g ${adapter.npmPackage} (${adapter.minVersion} or newer), or set executable on the target to its path`,
        false,
      );
    case 'version':
      return fail(
        `${agent} ${context.version ?? '(unknown version)'} is older than ${adapter.minVersion}, the oldest version AgentV runs`,
        `update it with npm i -g ${adapter.npmPackage}@latest, or set executable on the target to a newer one`,
        false,
      );
    case 'auth':
      return fail(
        `${agent}: the model API${where} refused the credentials${detail}`,
        `check api_key on the target (e.g. api_key: \${{ ${adapter.apiKeyVariable ?? 'OPENAI_API_KEY'} }}) and that base_url is the API it belongs to`,
        false,
      );
    case 'model_not_found':
      return fail(
        `${agent}: the model API${where} does not know the model${context.settings.model ? ` "${context.settings.model}"` : ''}${detail}`,
        'check model on the target: it must be a model this API serves to your key',
        false,
      );
    case 'timeout':
      return fail(
        `${agent} did not finish within ${context.timeout?.seconds ?? '?'} s; it and every process it started were stopped`,
        context.timeout?.hint ?? 'raise timeout_seconds on the target (or pass --agent-timeout)',
        true,
      );
    case 'no_answer':
      return fail(
        `${agent} ended without a final answer${exit}${stderr}`,
        `run the same prompt with ${context.command} by hand to see what it does; the transcript beside the results holds every event it sent`,
        true,
      );
    default:
      return fail(
        `${agent} failed${exit}${detail}${detail ? '' : stderr}`,
        'the transcript beside the results holds every event it sent; --verbose shows its stderr',
        true,
      );
  }
}
