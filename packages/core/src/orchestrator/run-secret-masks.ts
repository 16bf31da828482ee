import type { ProviderContext } from '../provider/provider-factory.js';
import { credentialValues } from '../util/credential-variables.js';
import { createSecretMask, type SecretMask } from '../util/mask-secrets.js';
import type { RunEvaluationOptions } from './run-options.js';

/** What one run masks, built once before its first case. */
export interface RunSecretMasks {
  /**
   * The mask of what a case run against `target` reports (its result, prompt
   * and attempts): the target's `${{ VAR }}` values and the environment's
   * credentials. Another name (a judge target) gets the credentials alone.
   */
  forTarget(target: string): SecretMask | undefined;
  /** Every secret of the run, for lines that belong to no one case (provider logs, warnings). */
  all: SecretMask;
}

/**
 * The run's masks: the values of its targets' `${{ VAR }}` placeholders, and
 * the values of credential-looking variables of the environment agents start
 * from (`providerContext.env`, else `process.env`; see `credentialValues`).
 * Undefined when there is nothing to mask, so the run skips the work.
 */
export function runSecretMasks(options: RunEvaluationOptions): RunSecretMasks | undefined {
  const credentials = credentialValues(options.providerContext?.env ?? process.env);
  const everything = new Set(credentials);
  const byTarget = new Map<string, SecretMask>();
  for (const target of options.plan.targets) {
    if (target.secretValues === undefined || byTarget.has(target.name)) continue;
    for (const value of target.secretValues) everything.add(value);
    const mask = createSecretMask([...target.secretValues, ...credentials]);
    if (mask) byTarget.set(target.name, mask);
  }
  const all = createSecretMask([...everything]);
  if (all === undefined) return undefined;
  const common = createSecretMask(credentials);
  return { forTarget: (target) => byTarget.get(target) ?? common, all };
}

/**
 * `options` with everything it hands out masked: attempt records and prompts
 * with their target's mask; warnings and the providers' log lines
 * (`providerContext.log`, default stderr) with every secret of the run.
 * Providers still get the real values, and graders the real answers.
 */
export function withSecretsMasked(
  options: RunEvaluationOptions,
  masks: RunSecretMasks,
): RunEvaluationOptions {
  const { onAttempt, onPrompt, onWarning } = options;
  const context: ProviderContext = options.providerContext ?? {};
  const log = context.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  return {
    ...options,
    providerContext: { ...context, log: (line) => log(masks.all.text(line)) },
    ...(onWarning === undefined
      ? {}
      : { onWarning: (message: string) => onWarning(masks.all.text(message)) }),
    ...(onAttempt === undefined
      ? {}
      : {
          onAttempt: (record) => onAttempt(masks.forTarget(record.target)?.deep(record) ?? record),
        }),
    ...(onPrompt === undefined
      ? {}
      : {
          onPrompt: (evalCase, prompt, target) =>
            onPrompt(evalCase, masks.forTarget(target.name)?.deep(prompt) ?? prompt, target),
        }),
  };
}
