import { stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '@agentv/core/internal';
import type { ArgsDef } from 'citty';
import { closeChoice } from '../close-choice.js';
import { isGlob } from '../expand-paths.js';
import { outputRoot } from './project-root.js';
import { resolveEvalPaths } from './resolve-eval-paths.js';

/** The `agentv eval` flags that choose the result format and the extra artifacts. */
export const reportArgs = {
  'output-format': {
    type: 'string',
    description:
      'Result file format: jsonl or yaml (default: from the --out extension, else jsonl)',
    valueHint: 'jsonl|yaml',
  },
  'dump-traces': {
    type: 'boolean',
    description: 'Write one JSON file per case attempt with its trace to .agentv/traces/',
  },
  'dump-prompts': {
    // A boolean for citty, which cannot express an optional value; the value is read from rawArgs.
    type: 'boolean',
    description:
      "Write each case's exact prompt as JSON to .agentv/prompts/, or to DIR with --dump-prompts DIR",
  },
  junit: {
    type: 'string',
    description: 'Also write a JUnit XML report to PATH',
    valueHint: 'PATH',
  },
  html: {
    type: 'string',
    description: 'Also write a self-contained HTML report to PATH',
    valueHint: 'PATH',
  },
} as const satisfies ArgsDef;

export type OutputFormat = 'jsonl' | 'yaml';

export interface ReportFlags {
  outputFormat: OutputFormat;
  /** Absolute folder for trace dumps, when `--dump-traces` is given. */
  traceDir?: string;
  /** Absolute folder for prompt dumps, when `--dump-prompts` is given. */
  promptDir?: string;
  junitPath?: string;
  htmlPath?: string;
  /** The eval paths: the positionals without a value `--dump-prompts` took. */
  evalInputs: string[];
}

export const DEFAULT_TRACE_DIR = path.join('.agentv', 'traces');
export const DEFAULT_PROMPT_DIR = path.join('.agentv', 'prompts');

/**
 * Reads the report flags. `--dump-prompts` takes an optional folder: the one
 * in `--dump-prompts=DIR`, or the next argument when that is not a flag and
 * does not look like an eval input (a `.yaml`/`.yml` path, a glob, an existing
 * file, or a folder holding eval files).
 */
export async function parseReportFlags(
  args: {
    _: string[];
    out?: string;
    'output-format'?: string;
    'dump-traces'?: boolean;
    junit?: string;
    html?: string;
  },
  rawArgs: readonly string[],
  cwd: string,
): Promise<ReportFlags> {
  const evalInputs = [...args._];
  let promptDir: string | undefined;
  for (let index = 0; index < rawArgs.length; index++) {
    const arg = rawArgs[index]!;
    if (arg === '--') break;
    if (arg.startsWith('--dump-prompts=')) {
      promptDir = arg.slice('--dump-prompts='.length);
      if (promptDir === '') {
        throw new UsageError('--dump-prompts= needs a folder after the =', {
          hint: 'write --dump-prompts alone for .agentv/prompts/, or --dump-prompts=DIR',
        });
      }
    } else if (arg === '--dump-prompts') {
      const next = rawArgs[index + 1];
      if (next !== undefined && !next.startsWith('-') && !(await isEvalInput(next, cwd))) {
        promptDir = next;
        const position = evalInputs.indexOf(next);
        if (position !== -1) evalInputs.splice(position, 1);
        if (evalInputs.length === 0) {
          throw new UsageError(`no eval files given: --dump-prompts took "${next}" as its folder`, {
            hint: 'put the eval paths before --dump-prompts, or write --dump-prompts=DIR',
          });
        }
        index++;
      } else {
        promptDir = path.join(outputRoot(cwd), DEFAULT_PROMPT_DIR);
      }
    }
  }

  return {
    outputFormat: outputFormatOf(args['output-format'], args.out),
    ...(args['dump-traces'] === true
      ? { traceDir: path.join(outputRoot(cwd), DEFAULT_TRACE_DIR) }
      : {}),
    ...(promptDir === undefined ? {} : { promptDir: path.resolve(cwd, promptDir) }),
    ...(args.junit === undefined
      ? {}
      : { junitPath: path.resolve(cwd, pathFlag(args.junit, 'junit')) }),
    ...(args.html === undefined
      ? {}
      : { htmlPath: path.resolve(cwd, pathFlag(args.html, 'html')) }),
    evalInputs,
  };
}

function outputFormatOf(flag: string | undefined, out: string | undefined): OutputFormat {
  if (flag === undefined) return out !== undefined && /\.ya?ml$/i.test(out) ? 'yaml' : 'jsonl';
  const format = flag.toLowerCase();
  if (format === 'jsonl' || format === 'yaml') return format;
  throw new UsageError(`--output-format must be jsonl or yaml, got "${flag}"`, {
    hint: `${closeChoice(format, ['jsonl', 'yaml'])}write --output-format yaml for YAML documents, or leave it out for JSONL`,
  });
}

function pathFlag(value: unknown, flag: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new UsageError(`--${flag} needs a file path`, { hint: `write --${flag} PATH` });
  }
  return value;
}

async function isEvalInput(value: string, cwd: string): Promise<boolean> {
  if (/\.ya?ml$/i.test(value) || (await isGlob(value))) return true;
  const info = await stat(path.resolve(cwd, value)).catch(() => undefined);
  if (!info) return false;
  if (!info.isDirectory()) return true;
  return resolveEvalPaths([value], cwd).then(
    (files) => files.length > 0,
    () => false,
  );
}
