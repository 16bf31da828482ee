import { isAbsolute } from 'node:path';
import {
  type Provider,
  ProviderError,
  runHttpHealthcheck,
  stderrExcerpt,
} from '@agentv/core/provider-utils';
import type { CliHealthcheck, CliProviderSettings } from './cli-provider-settings.js';
import type { Redactor } from './redact.js';
import { renderCommandTemplate } from './render-command-template.js';
import { runCommand } from './run-command.js';

export const DEFAULT_COMMAND_HEALTHCHECK_SECONDS = 30;

/** What a health check needs besides its own settings. */
export interface HealthcheckContext {
  /** Working directory of a command check without its own `cwd`. */
  cwd: string;
  /** Added to the base environment. */
  env: Record<string, string>;
  /** The environment the command starts from (the project's); default `process.env`. */
  baseEnv?: Readonly<Record<string, string | undefined>>;
  redact: Redactor;
  killGraceMs?: number;
}

/**
 * Adds the target's `healthcheck` (when it has one) to a cli provider. A probe
 * runs before any case, so no eval file is known: the target's cwd counts only
 * when absolute; else the targets' base folder (a probe's own cwd wins).
 */
export function withHealthcheck(
  provider: Provider,
  settings: CliProviderSettings,
  options: {
    env?: Readonly<Record<string, string | undefined>>;
    killGraceMs?: number;
    redact: Redactor;
  },
): Provider {
  const healthcheck = settings.healthcheck;
  if (healthcheck === undefined) return provider;
  return {
    ...provider,
    healthcheck: () =>
      runHealthcheck(healthcheck, {
        cwd: isAbsolute(settings.cwd) ? settings.cwd : (settings.baseDir ?? process.cwd()),
        env: settings.env,
        ...(options.env === undefined ? {} : { baseEnv: options.env }),
        redact: options.redact,
        ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
      }),
  };
}

/**
 * Runs a health check: an HTTP GET passes on any 2xx status (core's
 * `runHttpHealthcheck`, shared with the http provider), a command passes on
 * exit code 0. Failures throw a non-retryable `ProviderError` saying what was
 * probed and how it failed (`GET http://… returned HTTP 503 (expected 2xx)`),
 * with a hint; the caller names the target.
 */
export async function runHealthcheck(
  healthcheck: CliHealthcheck,
  context: HealthcheckContext,
): Promise<void> {
  if (healthcheck.type === 'http') {
    await runHttpHealthcheck(healthcheck, context.redact);
  } else {
    await checkCommand(healthcheck.commandTemplate, healthcheck, context);
  }
}

async function checkCommand(
  template: string,
  healthcheck: { cwd?: string; timeoutSeconds?: number },
  context: HealthcheckContext,
): Promise<void> {
  const timeoutSeconds = healthcheck.timeoutSeconds ?? DEFAULT_COMMAND_HEALTHCHECK_SECONDS;
  const { command } = renderCommandTemplate(template, {});
  const subject = `command ${JSON.stringify(context.redact(command))}`;
  const outcome = await runCommand({
    command,
    cwd: healthcheck.cwd ?? context.cwd,
    env: { ...(context.baseEnv ?? process.env), ...context.env },
    timeoutMs: timeoutSeconds * 1000,
    ...(context.killGraceMs === undefined ? {} : { killGraceMs: context.killGraceMs }),
    // Only the exit code and a stderr excerpt are read: nothing a health check prints piles up.
    maxStdoutBytes: 0,
    maxStderrBytes: 64 * 1024,
  });
  if (outcome.exitCode === 0 && !outcome.timedOut) return;
  const stderr = stderrExcerpt(context.redact(outcome.stderr));
  const what = outcome.timedOut
    ? `timed out after ${timeoutSeconds}s`
    : outcome.exitCode === undefined
      ? `was killed by signal ${outcome.signalName ?? 'unknown'}`
      : `exited with code ${outcome.exitCode}`;
  throw new ProviderError(`${subject} ${what}${stderr ? `; stderr: ${stderr}` : ''}`, {
    retryable: false,
    ...(outcome.exitCode === undefined ? {} : { exitCode: outcome.exitCode }),
    ...(stderr ? { stderr } : {}),
    hint: 'run the health check command by hand to see why it fails',
  });
}
