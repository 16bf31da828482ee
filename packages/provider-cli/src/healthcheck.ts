import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
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
 * Adds the target's `healthcheck` (when it has one) to a cli provider. The probe runs in its own
 * `cwd`, else in the target's when absolute, else in the folder of the eval file of the target's
 * first case (`use.evalFile`; the targets' base folder when none): a relative probe `cwd`
 * resolves against that folder too, as AgentV 4.x resolves it.
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
    healthcheck: async (use) => {
      const base = use?.evalFile
        ? dirname(resolve(use.evalFile))
        : (settings.baseDir ?? process.cwd());
      const own = healthcheck.type === 'command' ? healthcheck.cwd : undefined;
      const cwd =
        own !== undefined ? resolve(base, own) : isAbsolute(settings.cwd) ? settings.cwd : base;
      if (own !== undefined && !existsSync(cwd)) {
        throw new ProviderError(`the health check's cwd ${cwd} does not exist`, {
          retryable: false,
          hint: "fix healthcheck.cwd: a relative one resolves against the eval file's folder",
        });
      }
      await runHealthcheck(healthcheck.type === 'command' ? { ...healthcheck, cwd } : healthcheck, {
        cwd,
        env: settings.env,
        ...(options.env === undefined ? {} : { baseEnv: options.env }),
        redact: options.redact,
        ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
      });
    },
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
