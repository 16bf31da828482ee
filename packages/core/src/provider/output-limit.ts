import { ProviderError } from '../errors/provider-error.js';
import { formatBytes } from '../util/byte-size.js';

/** A target's `max_output_bytes` when it sets none: 16 MiB. */
export const DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/**
 * The largest `max_output_bytes` a target may set: 64 MiB. An answer is kept
 * whole in the JSON result line, where escaping can make it six times longer
 * (a control character becomes `\u0001`), and a JavaScript string holds at
 * most 512 Mi characters.
 */
export const MAX_OUTPUT_BYTES_CEILING = 64 * 1024 * 1024;

/** The most bytes of one answer a provider reads for `target`: its `max_output_bytes`, else the default. */
export function maxOutputBytes(target: { maxOutputBytes?: number }): number {
  return target.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
}

/**
 * The error of an answer that passed its target's `max_output_bytes`: not
 * retryable (the agent would write as much again), with a hint naming the
 * setting. `message` says what passed the limit and what happened then
 * (`the agent's answer on stdout passed max_output_bytes (64 KiB): it had
 * written 1.2 MiB when it was stopped`; `formatBytes` writes the sizes).
 */
export function outputLimitError(message: string): ProviderError {
  return new ProviderError(message, {
    retryable: false,
    hint: `make the agent write less, or raise max_output_bytes on the target (default ${formatBytes(DEFAULT_MAX_OUTPUT_BYTES)}, at most ${formatBytes(MAX_OUTPUT_BYTES_CEILING)})`,
  });
}
