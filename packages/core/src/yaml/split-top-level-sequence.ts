import type { SourcePosition } from './yaml-source.js';

/** One item of a block sequence, as its own YAML text. */
export interface SequenceSlice {
  /** The item's lines, unindented text kept as is so columns stay true. */
  text: string;
  /** 1-based line of the item's first line in the file. */
  firstLine: number;
  /** Where the item's value starts (after `- `), as the whole-file parse reports it. */
  position: SourcePosition;
}

/** A file split into its top level (with the sequence's items blanked out) and the items. */
export interface SplitSequence {
  /** The file with the item lines emptied, so line numbers are unchanged. */
  header: string;
  items: SequenceSlice[];
  /** Where the sequence starts (its first `-`). */
  start: SourcePosition;
}

// Anchors and directives make items depend on each other or on the header.
const UNSPLITTABLE = /(^|[\s[{,])&[^\s]|^%/m;

/**
 * Splits a large YAML file at the items of the block sequence under the
 * top-level `key:`, so each item can be parsed on its own (the YAML parser's
 * memory grows with document size). Returns undefined whenever the layout is
 * not the plain one this relies on; callers then parse the whole file.
 */
export function splitTopLevelSequence(text: string, key: string): SplitSequence | undefined {
  if (UNSPLITTABLE.test(text)) return undefined;
  const lines = text.split('\n');
  const keyLine = new RegExp(`^${key}[ \\t]*:[ \\t]*(#.*)?\\r?$`);
  const keyIndexes = lines.flatMap((line, index) => (keyLine.test(line) ? [index] : []));
  if (keyIndexes.length !== 1) return undefined;

  let index = keyIndexes[0]! + 1;
  while (index < lines.length && isBlankOrComment(lines[index]!)) index++;
  const first = /^( *)-( |\r?$)/.exec(lines[index] ?? '');
  if (!first) return undefined;
  const itemIndent = first[1]!.length;

  const starts: number[] = [];
  let end = index;
  for (; end < lines.length; end++) {
    const line = lines[end]!;
    if (isBlankOrComment(line)) continue;
    const indent = line.length - line.trimStart().length;
    if (indent > itemIndent) continue;
    const isItem = indent === itemIndent && /^-( |\r?$)/.test(line.slice(indent));
    if (isItem) {
      starts.push(end);
      continue;
    }
    // Only a new top-level key may end the sequence; anything else is unusual layout.
    if (indent !== 0) return undefined;
    break;
  }

  const items = starts.map((start, position): SequenceSlice => {
    const stop = starts[position + 1] ?? end;
    return {
      text: `${lines.slice(start, stop).join('\n')}\n`,
      firstLine: start + 1,
      position: itemStart(lines, start, itemIndent),
    };
  });
  const header = lines
    .map((line, lineIndex) => (lineIndex > keyIndexes[0]! && lineIndex < end ? '' : line))
    .join('\n');
  return { header, items, start: { line: starts[0]! + 1, column: itemIndent + 1 } };
}

function isBlankOrComment(line: string): boolean {
  const trimmed = line.trim();
  return trimmed === '' || trimmed.startsWith('#');
}

/** The first character of the item's value: after `- ` on its line, else the next content line. */
function itemStart(lines: readonly string[], start: number, itemIndent: number): SourcePosition {
  const rest = lines[start]!.slice(itemIndent + 1);
  const spaces = rest.length - rest.trimStart().length;
  if (!isBlankOrComment(rest)) return { line: start + 1, column: itemIndent + 2 + spaces };
  for (let index = start + 1; index < lines.length; index++) {
    const line = lines[index]!;
    if (!isBlankOrComment(line)) {
      return { line: index + 1, column: line.length - line.trimStart().length + 1 };
    }
  }
  return { line: start + 1, column: itemIndent + 1 };
}
