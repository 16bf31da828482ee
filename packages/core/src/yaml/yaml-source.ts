import type { Document, LineCounter, Node, YAMLError } from 'yaml';
import type { Issue } from '../errors/input-issue.js';
import { loadedYamlPackage } from './yaml-package.js';

/** A 1-based position in a source file. */
export interface SourcePosition {
  line: number;
  column: number;
}

/** Compares a key in the file with a path segment; lets loaders accept alias spellings. */
export type KeyMatcher = (keyInFile: string, segment: string) => boolean;

/** Maps data paths (as in `doc.toJS()`, or zod issue paths) back to positions in the file. */
export interface SourceLocator {
  locate(path: readonly PropertyKey[]): SourcePosition | undefined;
  locateKey(mapPath: readonly PropertyKey[], key: string): SourcePosition | undefined;
}

const exactKey: KeyMatcher = (keyInFile, segment) => keyInFile === segment;

/**
 * A parsed YAML document (or a slice of a file starting at `firstLine`). Made only after
 * `loadYamlPackage()` has finished.
 */
export class YamlSource implements SourceLocator {
  readonly doc: Document.Parsed;
  private readonly lineCounter: LineCounter;
  private readonly matchKey: KeyMatcher;
  private readonly lineOffset: number;
  private readonly text: string;

  private readonly yaml = loadedYamlPackage();

  constructor(text: string, matchKey: KeyMatcher = exactKey, firstLine = 1) {
    this.text = text;
    this.lineCounter = new this.yaml.LineCounter();
    // yaml's parser reads process.env.LOG_TOKENS once per token (about 1 µs each, 35 ms for a
    // 1,000-case file); loading never replaces process.env to avoid that, and large case sets
    // come as JSONL or CSV datasets, which do not go through this parser.
    this.doc = this.yaml.parseDocument(text, { lineCounter: this.lineCounter, prettyErrors: true });
    this.matchKey = matchKey;
    this.lineOffset = firstLine - 1;
  }

  /** Syntax errors and warnings of the document, one issue each. */
  syntaxIssues(file: string): Issue[] {
    const toIssue = (error: YAMLError, severity: Issue['severity']): Issue => ({
      severity,
      file,
      line: error.linePos === undefined ? undefined : error.linePos[0].line + this.lineOffset,
      column: error.linePos?.[0].col,
      message: `YAML ${severity === 'error' ? 'syntax error' : 'warning'}: ${firstLine(error.message)}`,
      hint: yamlHint(error.code, this.text, error.linePos?.[0].line, this.lineOffset),
    });
    return [
      ...this.doc.errors.map((error) => toIssue(error, 'error')),
      ...this.doc.warnings.map((warning) => toIssue(warning, 'warning')),
    ];
  }

  /** The document's root node (undefined for a file of comments only). */
  get root(): Node | undefined {
    return (this.doc.contents ?? undefined) as Node | undefined;
  }

  locate(path: readonly PropertyKey[]): SourcePosition | undefined {
    return this.positionOf(this.deepestNode(path).node);
  }

  locateKey(mapPath: readonly PropertyKey[], key: string): SourcePosition | undefined {
    const { node, complete } = this.deepestNode(mapPath);
    if (complete && this.yaml.isMap(node)) {
      const keys = node.items.flatMap((pair) => (this.yaml.isScalar(pair.key) ? [pair.key] : []));
      const match =
        keys.find((candidate) => String(candidate.value) === key) ??
        keys.find((candidate) => this.matchKey(String(candidate.value), key));
      if (match) return this.positionOf(match);
    }
    return this.positionOf(node);
  }

  /** The node at `path`, or the deepest node on the way when the path stops existing. */
  private deepestNode(path: readonly PropertyKey[]): { node: Node | undefined; complete: boolean } {
    let node = this.root;
    for (const segment of path) {
      const child = this.child(node, segment);
      if (child === undefined) return { node, complete: false };
      node = child;
    }
    return { node, complete: true };
  }

  private child(node: Node | undefined, segment: PropertyKey): Node | undefined {
    const target = this.yaml.isAlias(node) ? (node.resolve(this.doc) as Node | undefined) : node;
    if (this.yaml.isSeq(target) && typeof segment === 'number') {
      return (target.items[segment] ?? undefined) as Node | undefined;
    }
    if (this.yaml.isMap(target)) {
      const name = String(segment);
      const pair =
        target.items.find(
          (item) => this.yaml.isScalar(item.key) && String(item.key.value) === name,
        ) ??
        target.items.find(
          (item) => this.yaml.isScalar(item.key) && this.matchKey(String(item.key.value), name),
        );
      if (this.yaml.isPair(pair)) return (pair.value ?? pair.key ?? undefined) as Node | undefined;
    }
    return undefined;
  }

  private positionOf(node: Node | undefined): SourcePosition | undefined {
    const offset = node?.range?.[0];
    if (offset === undefined) return undefined;
    const { line, col } = this.lineCounter.linePos(offset);
    return { line: line + this.lineOffset, column: col };
  }
}

function firstLine(message: string): string {
  return message
    .split(/ at line \d+, column \d+/)[0]!
    .split('\n')[0]!
    .trim();
}

function yamlHint(
  code: string,
  text: string,
  line: number | undefined,
  lineOffset: number,
): string {
  switch (code) {
    case 'DUPLICATE_KEY':
      return 'each key may appear once per mapping; remove or rename the repeated key';
    case 'MULTIPLE_DOCS':
      return 'the file must hold a single YAML document; remove the extra `---` line';
    case 'BAD_INDENT':
    case 'MISSING_CHAR':
    case 'UNEXPECTED_TOKEN': {
      const where = line === undefined ? undefined : indentationNote(text, line, lineOffset);
      return `${where === undefined ? '' : `${where}; `}check the indentation, quotes and brackets around this line`;
    }
    case 'TAB_AS_INDENT':
      return 'indent with spaces; YAML does not allow tabs there';
    case 'TAG_RESOLVE_FAILED':
      return 'remove the custom `!tag`; input files use plain YAML values';
    default:
      return 'fix the YAML syntax at this position';
  }
}

/** How far a line can be quoted in a hint. */
const QUOTED_LINE_CHARS = 60;

/**
 * Where line `line` (1-based in `text`) starts, and where the nearest line above it that starts
 * one or two columns away does (a key meant to line up with it): `line 6 ("   evaluators:")
 * starts at column 4, line 3 ("    input_messages:") at column 5`. A list item's key counts
 * from after its `- `. Undefined for a line that is blank or beyond the text.
 */
function indentationNote(text: string, line: number, lineOffset: number): string | undefined {
  const lines = text.split('\n', line);
  const here = lines[line - 1];
  if (here === undefined || here.trim() === '') return undefined;
  const column = startColumn(here);
  const shown = (number: number, content: string) =>
    `line ${number + lineOffset} (${JSON.stringify(quoted(content))})`;
  for (let above = line - 2; above >= 0 && above >= line - 51; above--) {
    const candidate = lines[above]!;
    const trimmed = candidate.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const other = keyColumn(candidate);
    if (other !== column && Math.abs(other - column) <= 2) {
      return `${shown(line, here)} starts at column ${column}, ${shown(above + 1, candidate)} at column ${other}`;
    }
  }
  return `${shown(line, here)} starts at column ${column}`;
}

function startColumn(line: string): number {
  return line.length - line.trimStart().length + 1;
}

/** The column of a line's key: after the `- ` of a list item that holds a mapping. */
function keyColumn(line: string): number {
  const start = startColumn(line);
  const item = /^- +(?=\S)/.exec(line.slice(start - 1));
  return item === null ? start : start + item[0].length;
}

function quoted(line: string): string {
  const text = line.trimEnd();
  return text.length <= QUOTED_LINE_CHARS ? text : `${text.slice(0, QUOTED_LINE_CHARS - 1)}…`;
}
