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

  private readonly yaml = loadedYamlPackage();

  constructor(text: string, matchKey: KeyMatcher = exactKey, firstLine = 1) {
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
      hint: yamlHint(error.code),
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

function yamlHint(code: string): string {
  switch (code) {
    case 'DUPLICATE_KEY':
      return 'each key may appear once per mapping; remove or rename the repeated key';
    case 'MULTIPLE_DOCS':
      return 'the file must hold a single YAML document; remove the extra `---` line';
    case 'BAD_INDENT':
    case 'MISSING_CHAR':
    case 'UNEXPECTED_TOKEN':
      return 'check the indentation, quotes and brackets around this line';
    case 'TAG_RESOLVE_FAILED':
      return 'remove the custom `!tag`; input files use plain YAML values';
    default:
      return 'fix the YAML syntax at this position';
  }
}
