import { z } from 'zod';
import { MAX_OUTPUT_BYTES_CEILING } from '../provider/output-limit.js';
import { BYTE_SIZE_PATTERN, parseByteSize } from '../util/byte-size.js';
import type { ProblemKind } from '../yaml/describe-zod-issues.js';

/** `$schema` values a targets file may declare. */
export const TARGETS_SCHEMA_VERSIONS = ['agentv-targets-v2.2', 'agentv-targets-v2'] as const;

/**
 * One target, keys in snake_case. Only the keys every provider shares are
 * typed here (and lifted onto `ResolvedTarget`'s typed fields, which
 * providers read); provider-specific keys pass through to `settings` and are
 * known only to their provider (`ProviderFactory.settingsKeys`, `validate`).
 */
export const targetSchema = z
  .looseObject({
    name: z.string().min(1).describe('Unique in the file; eval files choose targets by name'),
    provider: z.string().min(1).describe('The provider kind, e.g. `cli` (run a command) or `mock`'),
    workers: z.int().min(1).optional().describe('Cases run at once (default 4)'),
    max_retries: z.int().min(0).optional().describe('Retries of a failed call (default 2)'),
    requests_per_minute: z
      .number()
      .positive()
      .optional()
      .describe('Most calls started per minute, spread evenly; 429s lower concurrency further'),
    tokens_per_minute: z
      .number()
      .positive()
      .optional()
      .describe('Most tokens (input + output, as the provider reports them) spent per minute'),
    provider_batching: z
      .boolean()
      .optional()
      .describe('Answer many cases with one call (the cli provider writes JSONL)'),
    batch_size: z.int().min(1).optional().describe('Cases per batch call'),
    timeout_seconds: z.number().positive().optional().describe('Time limit of one call'),
    max_output_bytes: z
      .union([
        z.int().min(1).max(MAX_OUTPUT_BYTES_CEILING),
        z
          .string()
          .regex(BYTE_SIZE_PATTERN, 'not a number of bytes or a size in KiB, MiB or GiB')
          .transform((text) => parseByteSize(text) ?? 0)
          .pipe(z.int().min(1).max(MAX_OUTPUT_BYTES_CEILING)),
      ])
      .optional()
      .describe(
        'Most bytes read of one answer (stdout, {OUTPUT_FILE}, a reply line, an HTTP body): a number or e.g. `64KiB`, `16MiB` (default 16 MiB, at most 64 MiB); past it the agent is stopped and the case errors',
      ),
    judge_target: z.string().min(1).optional().describe('The target LLM judges use'),
    trace: z
      .union([
        z.strictObject({
          source: z.literal('otlp', { error: 'must be `otlp`' }),
          grace_ms: z.int().min(0).max(60_000).optional(),
          port: z.int().min(1).max(65_535).optional(),
        }),
        // The `mock` provider's own setting: the trace events it answers with.
        z.array(z.unknown()),
      ])
      .optional()
      .describe(
        "Where the call's trace comes from: `{ source: otlp }` runs an OTLP receiver and gives each call OTEL_EXPORTER_OTLP_ENDPOINT, TRACEPARENT and OTEL_RESOURCE_ATTRIBUTES (http targets: a traceparent header); `grace_ms` waits for late batches after the call (default 50); `port` is the receiver's port on 127.0.0.1 (default: a free one)",
      ),
  })
  .describe(
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a targets-file placeholder, not a JS template
    'A target; other keys are settings of its provider (see its documentation). camelCase spellings are accepted. Any string may use `${{ ENV_VAR }}`.',
  );

/** A targets file as written (README, "Targets"), after camelCase keys are converted. */
export const targetsFileSchema = z.looseObject({
  $schema: z.enum(TARGETS_SCHEMA_VERSIONS).optional(),
  targets: z.array(targetSchema).min(1),
});

export type TargetInput = z.infer<typeof targetSchema>;

/** Keys every target may have, whatever its provider. */
export const COMMON_TARGET_KEYS: readonly string[] = Object.keys(targetSchema.shape);

/** Keys of the targets file's top level. */
export const TARGETS_FILE_KEYS: readonly string[] = Object.keys(targetsFileSchema.shape);

const FIELD_HINTS: Record<string, string> = {
  name: 'give every target a unique `name:`, e.g. `name: default`',
  provider: 'set `provider:` to the provider kind, e.g. `provider: cli`',
  workers: 'workers is a whole number >= 1, e.g. `workers: 4`',
  max_retries: 'max_retries is a whole number >= 0, e.g. `max_retries: 2`',
  requests_per_minute: 'requests_per_minute is a number > 0, e.g. `requests_per_minute: 500`',
  tokens_per_minute: 'tokens_per_minute is a number > 0, e.g. `tokens_per_minute: 200000`',
  provider_batching: 'provider_batching is `true` or `false`',
  batch_size: 'batch_size is a whole number >= 1, e.g. `batch_size: 100`',
  timeout_seconds: 'timeout_seconds is a number of seconds > 0, e.g. `timeout_seconds: 60`',
  max_output_bytes:
    'max_output_bytes is a number of bytes from 1 to 64 MiB, or a size such as `max_output_bytes: 32MiB` (units KiB, MiB, GiB)',
  judge_target: 'judge_target is the name of another target, e.g. `judge_target: judge`',
  trace:
    'write `trace: { source: otlp }`, optionally with `grace_ms:` (milliseconds to wait for late spans, 0 to 60000) and `port:` (the port of the receiver on 127.0.0.1, 1 to 65535; default a free one)',
};

/** How to fix a schema problem at `path` of a targets file. */
export function targetsFileHint(
  path: readonly PropertyKey[],
  _kind: ProblemKind,
): string | undefined {
  if (path.length === 1 && path[0] === '$schema') {
    return `use \`$schema: ${TARGETS_SCHEMA_VERSIONS[0]}\` or remove the line`;
  }
  if (path.length === 1 && path[0] === 'targets') {
    return 'add a `targets:` list with at least one `- name: ..., provider: ...` entry';
  }
  if (path.length === 2) return 'write each target as a mapping with `name:` and `provider:`';
  return typeof path[2] === 'string' ? FIELD_HINTS[path[2]] : undefined;
}
