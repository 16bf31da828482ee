import { statSync } from 'node:fs';
import { dirname, isAbsolute, relative as relativePath, resolve } from 'node:path';
import type { Issue } from '@agentv/core';
import {
  assertValidSettings,
  closestMatch,
  isRecord,
  maxOutputBytes,
  type ResolvedTarget,
  settingsIssues,
  snakeCaseSettings,
  type WorkspaceConfig,
} from '@agentv/core/provider-utils';
import { z } from 'zod';
import { batchTemplateIssues } from './batch-template-issues.js';
import { checkTargetProgram } from './check-program.js';
import { type CliMode, cliMode, persistentModeIssues } from './persistent-settings.js';
import { isAgentvVariable } from './placeholder-variables.js';
import {
  findPlaceholders,
  formatSupportedPlaceholders,
  isSupportedPlaceholder,
  SUPPORTED_PLACEHOLDERS,
} from './placeholders.js';
import { compileCommandTemplate } from './render-command-template.js';

/** A health check over HTTP: GET `url`; any 2xx status passes. */
export interface CliHttpHealthcheck {
  type: 'http';
  url: string;
  timeoutSeconds?: number;
}

/** A health check command: exit code 0 passes. Runs without placeholders. */
export interface CliCommandHealthcheck {
  type: 'command';
  commandTemplate: string;
  /**
   * Working directory as written: a relative one resolves against the folder of the eval file
   * of the target's first case (as AgentV 4.x does); default the provider's `cwd`.
   */
  cwd?: string;
  timeoutSeconds?: number;
}

export type CliHealthcheck = CliHttpHealthcheck | CliCommandHealthcheck;

/** The typed settings of a `provider: cli` target. */
export interface CliProviderSettings {
  /** The shell command with `{PLACEHOLDER}`s (see `SUPPORTED_PLACEHOLDERS`). */
  commandTemplate: string;
  /** How `{FILES}` renders one file: `{path}` and/or `{basename}`. Default `{path}`. */
  filesFormat: string;
  /** How `{ATTACHMENTS}` renders one file. Default `{path}`. */
  attachmentsFormat: string;
  /**
   * Working directory of the command. A relative one (the default is `.`)
   * resolves against the directory of the eval file of the case being run
   * (README, "Targets"), or `baseDir` when there is none (health checks).
   */
  cwd: string;
  /** Where a relative `cwd` resolves when no eval file is known: the targets' base folder. */
  baseDir?: string;
  /** Added to the process environment of the command. Values are treated as secrets in logs. */
  env: Record<string, string>;
  /**
   * Per-call time limit (the target's `timeout_seconds`); undefined means
   * `--agent-timeout` when given, else `DEFAULT_CLI_TIMEOUT_SECONDS`.
   */
  timeoutSeconds?: number;
  /**
   * Most bytes of one answer (the target's `max_output_bytes`): stdout, `{OUTPUT_FILE}`, a
   * batch line or a persistent agent's reply line. Default core's `DEFAULT_MAX_OUTPUT_BYTES`.
   */
  maxOutputBytes?: number;
  healthcheck?: CliHealthcheck;
  /** Log the rendered command, cwd, duration and stderr of every call. */
  verbose: boolean;
  /** `persistent`: one process per worker speaking JSON lines; default `single` (a process per case). */
  mode?: CliMode;
  /**
   * `mode: persistent` only (the target's `start_timeout_seconds`): each process must print
   * `{"ready": true}` within this time before it is sent a case, and no case's time limit
   * covers its start. Unset: a process's first case includes its start.
   */
  startTimeoutSeconds?: number;
}

/**
 * The keys a `cli` target has besides those every target shares
 * (`timeout_seconds`, `provider_batching`, ..., checked by core and read from
 * `ResolvedTarget`'s typed fields), for the loader's unknown-key warnings.
 */
export const CLI_SETTINGS_KEYS = [
  'command_template',
  'files_format',
  'attachments_format',
  'cwd',
  'env',
  'healthcheck',
  'verbose',
  'mode',
  'start_timeout_seconds',
] as const;

const DEFAULT_FILE_FORMAT = '{path}';

/**
 * Seconds one call of a `cli` target may take when neither its
 * `timeout_seconds` nor `--agent-timeout` says: an agent that hangs is stopped
 * (and retried) instead of holding the run forever. A batch call is one call.
 */
export const DEFAULT_CLI_TIMEOUT_SECONDS = 600;

const requiredString = (what: string) =>
  z
    .string({
      error: (issue) => (issue.input === undefined ? 'is required' : `must be ${what}`),
    })
    .refine((value) => value.trim().length > 0, { message: 'must not be empty' });

const seconds = z
  .number({ error: 'must be a number of seconds' })
  .positive({ message: 'must be greater than 0' });

const fileFormat = z
  .string({ error: 'must be a string such as "{path}" or "--file={path}"' })
  .refine((value) => value.includes('{path}') || value.includes('{basename}'), {
    message: 'must contain {path} or {basename}',
  });

const cliSettingsSchema = z.object({
  command_template: requiredString('a string (the shell command to run)'),
  files_format: fileFormat.optional(),
  attachments_format: fileFormat.optional(),
  cwd: requiredString('a directory path').optional(),
  env: z
    .record(
      z.string(),
      z.union([z.string(), z.number(), z.boolean()], {
        error: 'must be a string (numbers and booleans are converted)',
      }),
      { error: 'must be a mapping of variable names to values' },
    )
    .optional(),
  verbose: z.boolean({ error: 'must be true or false' }).optional(),
  // Past 2^31 ms a timer fires at once.
  start_timeout_seconds: seconds
    .max(2_147_483, { message: 'must be at most 2147483 (about 24 days)' })
    .optional(),
});

const httpHealthcheckSchema = z.object({
  type: z.literal('http'),
  url: z.url({
    protocol: /^https?$/,
    error: (issue) =>
      issue.input === undefined
        ? 'is required for type: http'
        : 'must be an http:// or https:// URL',
  }),
  timeout_seconds: seconds.optional(),
});

const commandHealthcheckSchema = z.object({
  type: z.literal('command'),
  command_template: z
    .string({
      error: (issue) =>
        issue.input === undefined ? 'is required for type: command' : 'must be a string',
    })
    .refine((value) => value.trim().length > 0, { message: 'must not be empty' }),
  cwd: requiredString('a directory path').optional(),
  timeout_seconds: seconds.optional(),
});

const HEALTHCHECK_HINT =
  'use { type: http, url: "http://127.0.0.1:8080/health" } or { type: command, command_template: "..." }';

const HINTS: Record<string, string> = {
  command_template:
    'set command_template to the command that runs your agent, e.g. "node ./agent.mjs --prompt {PROMPT}"',
  files_format: 'e.g. files_format: "--file {path}"',
  attachments_format: 'e.g. attachments_format: "--attach {path}"',
  cwd: "give a directory; a relative cwd resolves against each eval file's directory",
  env: 'write env as a mapping, e.g. env: { API_BASE: "http://127.0.0.1:8080" }',
  verbose: 'use verbose: true or verbose: false',
  healthcheck: HEALTHCHECK_HINT,
  start_timeout_seconds:
    'give the seconds a persistent agent may take to load before it prints {"ready": true}, e.g. start_timeout_seconds: 120',
};

/**
 * Checks a `cli` target's settings and returns every problem found: schema
 * errors, unknown `{PLACEHOLDER}`s in `command_template`, a `cwd` that does
 * not exist, and malformed `healthcheck` entries.
 */
export function validateCliSettings(target: ResolvedTarget): Issue[] {
  const settings = target.settings;
  const issues: Issue[] = [];
  issues.push(...settingsIssues(cliSettingsSchema, settings, { hints: HINTS }));
  if (typeof settings.command_template === 'string') {
    issues.push(...placeholderIssues(settings.command_template));
    issues.push(...templateIssues(settings));
    if (target.providerBatching && cliMode(settings) === 'single') {
      issues.push(...batchTemplateIssues(settings.command_template));
    }
  }
  issues.push(...persistentModeIssues(target));
  if (isRecord(settings.env)) issues.push(...reservedVariableIssues(settings.env));
  // A relative cwd depends on the eval file of each case, so only an absolute one is checked here.
  if (typeof settings.cwd === 'string' && isAbsolute(settings.cwd.trim())) {
    const issue = directoryIssue(['cwd'], settings.cwd, target.baseDir);
    if (issue) issues.push(issue);
  }
  if (settings.healthcheck !== undefined) {
    issues.push(...healthcheckIssues(settings.healthcheck, target.baseDir));
  }
  return issues;
}

/**
 * Problems of running a `cli` target for the cases of `evalFile`: a relative
 * `cwd` resolves against that file's directory and must exist there, and the
 * program the command starts must be found from it (`checkTargetProgram`).
 * The same errors for `agentv validate` as for a run. For cases with a
 * `workspace` (not in persistent mode, which keeps its `cwd`) a relative `cwd`
 * resolves inside each case's workspace, which does not exist yet: the program
 * is looked for in the template when that folder is there, and nothing is
 * refused that repositories checked out into the workspace could still bring.
 */
export function checkCliUse(
  target: ResolvedTarget,
  evalFile: string,
  _mode?: 'run' | 'validate',
  workspace?: WorkspaceConfig,
): Issue[] {
  const cwd = target.settings.cwd;
  const relative = typeof cwd === 'string' && cwd.trim() !== '' ? cwd : '.';
  // In a container (`workspace.docker`) the command runs inside: its program is not looked for here.
  if (workspace?.docker !== undefined) return [];
  if (workspace !== undefined && cliMode(target.settings) === 'single' && !isAbsolute(relative)) {
    const inTemplate =
      workspace.template === undefined || (workspace.repos?.length ?? 0) > 0
        ? undefined
        : resolve(workspace.template, relative);
    // The program only: a workspace hook (`before_all`, say a build) may still make the script.
    const program =
      inTemplate === undefined
        ? undefined
        : checkTargetProgram(target, inTemplate, { scripts: false });
    return program === undefined ? [] : [program];
  }
  const issue = isAbsolute(relative)
    ? undefined
    : directoryIssue(['cwd'], relative, dirname(evalFile));
  if (!issue) {
    const program = checkTargetProgram(target, resolve(dirname(evalFile), relative));
    return program === undefined ? [] : [program];
  }
  return [
    {
      ...issue,
      message: `${issue.message} for the cases of ${shortPath(target.baseDir, evalFile)}`,
    },
  ];
}

/** `path` relative to `base` when it lies inside it, else as given. */
function shortPath(base: string, path: string): string {
  const inside = relativePath(base, path);
  return inside.startsWith('..') || isAbsolute(inside) ? path : inside;
}

/**
 * Converts a validated `cli` target into typed settings: paths made absolute
 * against `target.baseDir`, env values converted to strings, defaults applied.
 * Throws core's located `InvalidInputError` (`assertValidSettings`) when the
 * settings do not pass `validateCliSettings`.
 */
export function parseCliSettings(target: ResolvedTarget): CliProviderSettings {
  assertValidSettings(target, validateCliSettings(target));
  const raw = cliSettingsSchema.parse(target.settings);
  const timeoutSeconds = target.timeoutSeconds;
  const healthcheck = parseHealthcheck(target.settings.healthcheck);
  return {
    commandTemplate: raw.command_template,
    filesFormat: raw.files_format ?? DEFAULT_FILE_FORMAT,
    attachmentsFormat: raw.attachments_format ?? DEFAULT_FILE_FORMAT,
    cwd: raw.cwd ?? '.',
    baseDir: target.baseDir,
    env: Object.fromEntries(
      Object.entries(raw.env ?? {}).map(([key, value]) => [key, String(value)]),
    ),
    ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
    maxOutputBytes: maxOutputBytes(target),
    ...(healthcheck === undefined ? {} : { healthcheck }),
    verbose: raw.verbose ?? false,
    ...(cliMode(target.settings) === 'persistent' ? { mode: 'persistent' as const } : {}),
    ...(raw.start_timeout_seconds === undefined
      ? {}
      : { startTimeoutSeconds: raw.start_timeout_seconds }),
  };
}

function placeholderIssues(template: string): Issue[] {
  return findPlaceholders(template)
    .filter((name) => !isSupportedPlaceholder(name))
    .map((name) => ({
      severity: 'error' as const,
      path: ['command_template'],
      message: `unknown placeholder {${name}}; supported placeholders are ${formatSupportedPlaceholders()}`,
      hint: placeholderHint(name),
    }));
}

/**
 * Placeholders of `command_template` (and its files formats) that stand where
 * AgentV cannot prove the value is never parsed as code (`compileCommandTemplate`).
 */
function templateIssues(settings: Record<string, unknown>): Issue[] {
  const format = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const filesFormat = format(settings.files_format);
  const attachmentsFormat = format(settings.attachments_format);
  const compiled = compileCommandTemplate(settings.command_template as string, {
    ...(filesFormat === undefined ? {} : { filesFormat }),
    ...(attachmentsFormat === undefined ? {} : { attachmentsFormat }),
  });
  return compiled.problems.map((problem) => ({
    severity: 'error' as const,
    path: [problem.setting],
    message: problem.message,
    hint: problem.hint,
  }));
}

/** `env` keys that AgentV sets for every call (`AGENTV_PROMPT`, …). */
function reservedVariableIssues(env: Record<string, unknown>): Issue[] {
  return Object.keys(env)
    .filter(isAgentvVariable)
    .map((key) => ({
      severity: 'error' as const,
      path: ['env', key],
      message: `is set by AgentV for every call: it carries a placeholder's value to the command`,
      hint: 'choose another name for your variable',
    }));
}

function placeholderHint(name: string): string {
  const match = closestMatch(name, SUPPORTED_PLACEHOLDERS);
  const fix = match === undefined ? 'fix the name.' : `did you mean {${match}}?`;
  return `${fix} Write {{${name}}} for a literal {${name}}`;
}

function directoryIssue(
  field: readonly string[],
  path: string,
  baseDir: string,
): Issue | undefined {
  const absolute = resolve(baseDir, path);
  const shown = isAbsolute(path) ? path : `${path} (resolved to ${absolute})`;
  let isDirectory = false;
  try {
    isDirectory = statSync(absolute).isDirectory();
  } catch {
    return {
      severity: 'error',
      path: [...field],
      message: `directory ${shown} does not exist`,
      hint: HINTS.cwd,
    };
  }
  if (isDirectory) return undefined;
  return {
    severity: 'error',
    path: [...field],
    message: `${shown} is not a directory`,
    hint: HINTS.cwd,
  };
}

function healthcheckIssues(value: unknown, baseDir: string): Issue[] {
  if (!isRecord(value)) {
    return [
      {
        severity: 'error',
        path: ['healthcheck'],
        message: 'must be a mapping',
        hint: HEALTHCHECK_HINT,
      },
    ];
  }
  // Keys of `healthcheck` may be written in camelCase (`commandTemplate`), as in
  // the original format; the loader converts only a target's own keys.
  const { value: healthcheck, issues: conflicts } = snakeCaseSettings(value, ['healthcheck']);
  if (healthcheck.type === undefined) {
    return [
      ...conflicts,
      {
        severity: 'error',
        path: ['healthcheck', 'type'],
        message: 'is required; the supported types are http and command',
        hint: HEALTHCHECK_HINT,
      },
    ];
  }
  if (healthcheck.type !== 'http' && healthcheck.type !== 'command') {
    return [
      ...conflicts,
      {
        severity: 'error',
        path: ['healthcheck', 'type'],
        message: `unsupported type ${JSON.stringify(healthcheck.type)}; the supported types are http and command`,
        hint: HEALTHCHECK_HINT,
      },
    ];
  }
  const schema = healthcheck.type === 'http' ? httpHealthcheckSchema : commandHealthcheckSchema;
  const issues = [
    ...conflicts,
    ...settingsIssues(schema, healthcheck, { path: ['healthcheck'], hints: HINTS }),
  ];
  if (healthcheck.type === 'command') {
    if (typeof healthcheck.command_template === 'string') {
      for (const name of findPlaceholders(healthcheck.command_template)) {
        issues.push({
          severity: 'error',
          path: ['healthcheck', 'command_template'],
          message: `placeholder {${name}} has no value in a health check, which runs before any case`,
          hint: `remove it, or write {{${name}}} for a literal {${name}}`,
        });
      }
    }
    // A relative cwd depends on the eval file, so only an absolute one is checked here.
    if (typeof healthcheck.cwd === 'string' && isAbsolute(healthcheck.cwd.trim())) {
      const issue = directoryIssue(['healthcheck', 'cwd'], healthcheck.cwd, baseDir);
      if (issue) issues.push(issue);
    }
  }
  return issues;
}

function parseHealthcheck(value: unknown): CliHealthcheck | undefined {
  if (!isRecord(value)) return undefined;
  const healthcheck = snakeCaseSettings(value).value;
  if (healthcheck.type === 'http') {
    const parsed = httpHealthcheckSchema.parse(healthcheck);
    return {
      type: 'http',
      url: parsed.url,
      ...(parsed.timeout_seconds === undefined ? {} : { timeoutSeconds: parsed.timeout_seconds }),
    };
  }
  const parsed = commandHealthcheckSchema.parse(healthcheck);
  return {
    type: 'command',
    commandTemplate: parsed.command_template,
    ...(parsed.cwd === undefined ? {} : { cwd: parsed.cwd }),
    ...(parsed.timeout_seconds === undefined ? {} : { timeoutSeconds: parsed.timeout_seconds }),
  };
}
