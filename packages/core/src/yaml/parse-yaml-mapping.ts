import type { Issue } from '../errors/input-issue.js';
import { hasErrors, type LoadResult } from '../util/load-result.js';
import { emptyHint } from '../util/read-input-file.js';
import { loadFast } from './fast-yaml.js';
import { FastYamlSource } from './fast-yaml-source.js';
import { splitTopLevelSequence } from './split-top-level-sequence.js';
import { SplitYamlSource } from './split-yaml-source.js';
import { loadedYamlPackage, loadYamlPackage } from './yaml-package.js';
import { type KeyMatcher, type SourceLocator, YamlSource } from './yaml-source.js';

/** A YAML file whose top level is a mapping, with its source for locating issues. */
export interface ParsedYamlMapping {
  source: SourceLocator;
  data: Record<string, unknown>;
}

/** How to parse a file. */
export interface ParseYamlOptions {
  /** Accepts alias spellings of keys when locating paths. */
  matchKey?: KeyMatcher;
  /**
   * A top-level key holding a long block sequence (`evalcases`): files of at
   * least `splitAboveBytes` are parsed item by item to bound memory.
   */
  splitKey?: string;
  /** Default 256 KiB. */
  splitAboveBytes?: number;
}

const DEFAULT_SPLIT_ABOVE_BYTES = 256 * 1024;

/**
 * Parses `text` as one YAML document whose top level must be a mapping.
 * Syntax errors, a comment-only file and any other top level are errors;
 * YAML warnings are returned along with the value.
 *
 * A plain valid file is read by the fast parser, and the `yaml` package's
 * syntax tree is built only if a position it could not record is asked for;
 * anything else (errors, warnings, anchors, tags…) goes through `yaml`, so
 * values and messages are the same either way. The `yaml` package is loaded
 * only for a file that may need it.
 */
export async function parseYamlMapping(
  text: string,
  file: string,
  kind: string,
  options: ParseYamlOptions = {},
): Promise<LoadResult<ParsedYamlMapping>> {
  const fast = loadFast(text);
  if (fast !== undefined) {
    // Positions are asked for synchronously, while issues are made: load `yaml` now if the
    // fast parse left one to ask it for.
    if (!fast.frames.allExact()) await loadYamlPackage();
    const slow = () =>
      (isLarge(text, options) &&
        parseSplit(text, file, options.splitKey!, options.matchKey)?.value?.source) ||
      new YamlSource(text, options.matchKey);
    return {
      value: {
        source: new FastYamlSource(text, fast, slow, options.matchKey),
        data: fast.data as Record<string, unknown>,
      },
      issues: [],
    };
  }
  return parseWithYaml(text, file, kind, options);
}

function isLarge(text: string, options: ParseYamlOptions): boolean {
  return (
    options.splitKey !== undefined &&
    text.length >= (options.splitAboveBytes ?? DEFAULT_SPLIT_ABOVE_BYTES)
  );
}

/** `parseYamlMapping` with the `yaml` package alone (as before the fast parser; tests compare the two). */
export async function parseWithYaml(
  text: string,
  file: string,
  kind: string,
  options: ParseYamlOptions,
): Promise<LoadResult<ParsedYamlMapping>> {
  await loadYamlPackage();
  if (isLarge(text, options)) {
    const split = parseSplit(text, file, options.splitKey!, options.matchKey);
    if (split) return split;
  }
  const source = new YamlSource(text, options.matchKey);
  const issues: Issue[] = source.syntaxIssues(file);
  if (hasErrors(issues)) return { issues };
  if (source.root === undefined) {
    issues.push({ severity: 'error', file, message: `${kind} is empty`, hint: emptyHint(kind) });
    return { issues };
  }
  let data: unknown;
  try {
    data = source.doc.toJS({ maxAliasCount: 1000 });
  } catch (error) {
    issues.push({
      severity: 'error',
      file,
      ...source.locate([]),
      message: `YAML cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      hint: 'check that every `*alias` refers to an `&anchor` defined earlier in the file',
    });
    return { issues };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    issues.push({
      severity: 'error',
      file,
      ...source.locate([]),
      message: `the top level of the ${kind} must be a mapping (key: value pairs), not ${describeValue(data)}`,
      hint: emptyHint(kind),
    });
    return { issues };
  }
  return { value: { source, data: data as Record<string, unknown> }, issues };
}

/**
 * Parses the top level and each item of `key` separately. Undefined when the
 * file does not split cleanly or any part has an error: the whole-file parse
 * then reports problems with the parser's own positions.
 */
function parseSplit(
  text: string,
  file: string,
  key: string,
  matchKey: KeyMatcher | undefined,
): LoadResult<ParsedYamlMapping> | undefined {
  const split = splitTopLevelSequence(text, key);
  if (split === undefined) return undefined;
  const { isMap, isSeq } = loadedYamlPackage();
  const header = new YamlSource(split.header, matchKey);
  if (header.doc.errors.length > 0 || !isMap(header.root)) return undefined;
  const issues = header.syntaxIssues(file);
  const data = header.doc.toJS() as Record<string, unknown>;
  if (data[key] !== null) return undefined;
  const items: unknown[] = [];
  for (const slice of split.items) {
    const item = new YamlSource(slice.text, matchKey, slice.firstLine);
    if (item.doc.errors.length > 0 || !isSeq(item.root) || item.root.items.length !== 1) {
      return undefined;
    }
    issues.push(...item.syntaxIssues(file));
    items.push((item.doc.toJS() as unknown[])[0]);
  }
  data[key] = items;
  return {
    value: { source: new SplitYamlSource(header, key, split, matchKey), data },
    issues,
  };
}

/** A short description of a value's type for messages, never including the value itself. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'empty (null)';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return 'text';
    case 'number':
      return Number.isInteger(value) ? 'a whole number' : 'a number';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return 'a mapping';
    default:
      return typeof value;
  }
}
