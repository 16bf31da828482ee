import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import type { EvaluationContext, EvaluationScore, Evaluator } from './evaluator.js';
import { EvaluatorError } from './evaluator-error.js';
import { describe, excerpt, optionIssue, throwIfInvalid } from './evaluator-options.js';
import { loadJsonSchema, schemaOptionIssues, schemaViolations } from './json-schema.js';
import { requireWorkspace } from './require-workspace.js';
import { locateInWorkspace, type WorkspaceEntry, workspacePathProblem } from './workspace-path.js';

/** The most of a file the `file` grader reads; a larger file is a miss. */
export const MAX_FILE_GRADER_BYTES = 16 * 1024 * 1024;

/** Bytes looked at for a NUL to tell a binary file (as git does). */
const BINARY_PROBE_BYTES = 8000;

const CHECKS = ['exists', 'absent', 'contains', 'regex', 'equals', 'json_schema'] as const;
const CONTENT_CHECKS = ['contains', 'regex', 'equals', 'json_schema'] as const;

interface FileOptions {
  path: string;
  exists: boolean;
  absent: boolean;
  contains: string[];
  regex?: RegExp;
  equals?: string;
  jsonSchema?: unknown;
}

/**
 * `file`: checks one `path` inside the case's workspace after the agent ran:
 * `exists: true`, `absent: true`, `contains` (a string or a list: each must
 * occur), `regex` (with optional `flags`), `equals` (the whole content; one
 * trailing newline on either side is ignored) and `json_schema` (the file,
 * parsed as JSON, against a schema inline or in a `.json` file relative to the
 * eval file). Every check given must hold: each is a hit or a miss, and the
 * score is 1 when all hold, else 0. The path may not leave the workspace; a
 * symbolic link that leads out of it is not followed (a miss). Binary files,
 * directories, special files and files over 16 MiB have no text to check
 * (a miss). A case without a workspace is an evaluator error.
 */
export const fileEvaluator: Evaluator = {
  type: 'file',
  options: ['path', ...CHECKS, 'flags'],
  needsWorkspace: true,
  validate: (config) => validateOptions(config),
  async evaluate(config, context) {
    const workspace = requireWorkspace(context, 'file');
    throwIfInvalid(validateOptions(config));
    const options = readOptions(config);
    const shown = JSON.stringify(options.path);
    const entry = await locateInWorkspace(workspace.path, options.path);
    const hits: string[] = [];
    const misses: string[] = [];
    const wantsContent = CONTENT_CHECKS.some((check) => config[check] !== undefined);

    if (options.absent) {
      if (entry.kind === 'missing' && entry.danglingLink === undefined) {
        hits.push(`${shown} is absent`);
      } else {
        misses.push(`${shown} exists (${describeEntry(entry)}), and must be absent`);
      }
      return score(hits, misses);
    }
    if (entry.kind !== 'inside') {
      misses.push(`${shown} ${notThere(entry)}`);
      return score(hits, misses);
    }
    if (options.exists) hits.push(`${shown} exists`);
    if (!wantsContent) return score(hits, misses);

    const content = readText(entry.real);
    if (typeof content !== 'string') {
      misses.push(`${shown} ${content.problem}`);
      return score(hits, misses);
    }
    for (const value of options.contains) {
      if (content.includes(value)) hits.push(`${shown} contains ${JSON.stringify(excerpt(value))}`);
      else misses.push(`${shown} does not contain ${JSON.stringify(excerpt(value))}`);
    }
    if (options.regex !== undefined) checkRegex(options.regex, content, shown, hits, misses);
    if (options.equals !== undefined) checkEquals(options.equals, content, shown, hits, misses);
    if (options.jsonSchema !== undefined) {
      await checkJsonSchema(options.jsonSchema, content, shown, context, hits, misses);
    }
    return score(hits, misses);
  },
};

function score(hits: string[], misses: string[]): EvaluationScore {
  return { score: misses.length === 0 ? 1 : 0, hits, misses };
}

function describeEntry(entry: WorkspaceEntry): string {
  if (entry.kind === 'outside') return `a symbolic link to ${entry.real}, outside the workspace`;
  if (entry.kind === 'missing') return 'a symbolic link to nothing';
  return 'it is there';
}

function notThere(entry: Exclude<WorkspaceEntry, { kind: 'inside' }>): string {
  if (entry.kind === 'outside') {
    return `leads out of the workspace (a symbolic link to ${entry.real}); it is not followed`;
  }
  return entry.danglingLink === undefined
    ? 'does not exist'
    : 'is a symbolic link to nothing (does not exist)';
}

/** The file's text, or why it has none to check. */
function readText(file: string): string | { problem: string } {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO the agent left would otherwise wait for a writer.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { problem: 'does not exist' };
    if (code === 'EISDIR') return { problem: 'is a directory, not a file' };
    throw new EvaluatorError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) return { problem: 'is a directory, not a file' };
    if (!stat.isFile()) return { problem: 'is not a regular file' };
    if (stat.size > MAX_FILE_GRADER_BYTES) {
      return {
        problem: `is ${stat.size} bytes, more than the ${MAX_FILE_GRADER_BYTES} (16 MiB) the file grader reads`,
      };
    }
    const buffer = Buffer.allocUnsafe(stat.size);
    let filled = 0;
    while (filled < buffer.length) {
      const count = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (count === 0) break;
      filled += count;
    }
    const bytes = buffer.subarray(0, filled);
    if (bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) {
      return { problem: 'is a binary file; contains, regex, equals and json_schema check text' };
    }
    return bytes.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function checkRegex(
  regex: RegExp,
  content: string,
  shown: string,
  hits: string[],
  misses: string[],
): void {
  const match = regex.exec(content);
  const pattern = `/${regex.source}/${regex.flags}`;
  if (match) hits.push(`${shown} matches ${pattern} at ${JSON.stringify(excerpt(match[0]))}`);
  else misses.push(`${shown} does not match ${pattern}`);
}

function checkEquals(
  expected: string,
  content: string,
  shown: string,
  hits: string[],
  misses: string[],
): void {
  const want = withoutFinalNewline(expected);
  const have = withoutFinalNewline(content);
  if (want === have) {
    hits.push(`${shown} has the expected content`);
    return;
  }
  const wantLines = want.split('\n');
  const haveLines = have.split('\n');
  let line = 0;
  while (line < wantLines.length && wantLines[line] === haveLines[line]) line++;
  const found = line < haveLines.length ? JSON.stringify(excerpt(haveLines[line]!)) : 'the end';
  const expectedText =
    line < wantLines.length ? JSON.stringify(excerpt(wantLines[line]!)) : 'the end';
  misses.push(
    `${shown} differs from the expected content at line ${line + 1}: expected ${expectedText}, found ${found}`,
  );
}

/** `text` without one final `\n` or `\r\n`: editors and YAML block scalars add one. */
function withoutFinalNewline(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

async function checkJsonSchema(
  schema: unknown,
  content: string,
  shown: string,
  context: EvaluationContext,
  hits: string[],
  misses: string[],
): Promise<void> {
  const validate = await loadJsonSchema(schema, 'json_schema', context);
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch (error) {
    misses.push(`${shown} is not valid JSON: ${(error as Error).message}`);
    return;
  }
  if (validate(value)) {
    hits.push(`${shown} matches the JSON schema`);
    return;
  }
  const violations = schemaViolations(validate, 'the top level');
  misses.push(
    ...(violations.length > 0
      ? violations.map((violation) => `${shown}: ${violation}`)
      : [`${shown} does not match the JSON schema`]),
  );
}

function validateOptions(config: EvaluatorConfig): Issue[] {
  const problems: Issue[] = [];
  const { path: file, exists, absent, contains, regex, flags, equals } = config;
  if (file === undefined) {
    problems.push(
      optionIssue('path', '"path" is missing; give the file to check, relative to the workspace'),
    );
  } else if (typeof file !== 'string' || file.trim() === '') {
    problems.push(optionIssue('path', `"path" must be a non-empty string, got ${describe(file)}`));
  } else {
    const problem = workspacePathProblem(file);
    if (problem !== undefined) {
      problems.push(optionIssue('path', `"path" ${JSON.stringify(file)} ${problem}`));
    }
  }
  const given = CHECKS.filter((check) => config[check] !== undefined);
  if (given.length === 0) {
    problems.push(
      optionIssue(
        'path',
        `give at least one check of the file: ${CHECKS.join(', ')} (e.g. \`exists: true\`)`,
      ),
    );
  }
  if (exists !== undefined && exists !== true) {
    problems.push(
      optionIssue(
        'exists',
        exists === false
          ? '"exists: false" is not a check; write `absent: true` for a file that must not exist'
          : `"exists" must be true, got ${describe(exists)}`,
      ),
    );
  }
  if (absent !== undefined && absent !== true) {
    problems.push(
      optionIssue(
        'absent',
        absent === false
          ? '"absent: false" is not a check; write `exists: true` for a file that must exist'
          : `"absent" must be true, got ${describe(absent)}`,
      ),
    );
  }
  if (absent === true) {
    const others = given.filter((check) => check !== 'absent');
    if (others.length > 0) {
      problems.push(
        optionIssue(
          'absent',
          `"absent: true" cannot be combined with ${others.map((check) => `"${check}"`).join(', ')}: a file that must be absent has nothing to check`,
        ),
      );
    }
  }
  if (contains !== undefined && readContains(contains) === undefined) {
    problems.push(
      optionIssue(
        'contains',
        `"contains" must be a non-empty string or a non-empty list of them, got ${describe(contains)}`,
      ),
    );
  }
  if (flags !== undefined && regex === undefined) {
    problems.push(optionIssue('flags', '"flags" applies to "regex", which is not given'));
  }
  if (regex !== undefined) {
    const built = buildRegex(regex, flags);
    if (!(built instanceof RegExp)) problems.push(built);
  }
  if (equals !== undefined && typeof equals !== 'string') {
    problems.push(
      optionIssue(
        'equals',
        `"equals" must be a string (the whole expected content), got ${describe(equals)}`,
      ),
    );
  }
  if (config.json_schema !== undefined) {
    problems.push(...schemaOptionIssues(config.json_schema, 'json_schema'));
  }
  return problems;
}

function readContains(value: unknown): string[] | undefined {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  return list.every((item) => typeof item === 'string' && item !== '')
    ? (list as string[])
    : undefined;
}

function buildRegex(pattern: unknown, flags: unknown): RegExp | Issue {
  if (typeof pattern !== 'string' || pattern === '') {
    return optionIssue('regex', `"regex" must be a non-empty string, got ${describe(pattern)}`);
  }
  if (flags !== undefined && typeof flags !== 'string') {
    return optionIssue(
      'flags',
      `"flags" must be a string of regular expression flags such as "m", got ${describe(flags)}`,
    );
  }
  try {
    return new RegExp(pattern, flags ?? '');
  } catch (error) {
    return optionIssue(
      'regex',
      `"regex" ${JSON.stringify(pattern)} is not a valid regular expression: ${(error as Error).message}`,
    );
  }
}

function readOptions(config: EvaluatorConfig): FileOptions {
  const regex = config.regex === undefined ? undefined : buildRegex(config.regex, config.flags);
  return {
    path: config.path as string,
    exists: config.exists === true,
    absent: config.absent === true,
    contains: config.contains === undefined ? [] : (readContains(config.contains) ?? []),
    ...(regex instanceof RegExp ? { regex } : {}),
    ...(typeof config.equals === 'string' ? { equals: config.equals } : {}),
    ...(config.json_schema === undefined ? {} : { jsonSchema: config.json_schema }),
  };
}
