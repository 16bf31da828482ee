import type { FastNode } from './fast-yaml.js';
import type { KeyMatcher, SourceLocator, SourcePosition } from './yaml-source.js';

const exactKey: KeyMatcher = (keyInFile, segment) => keyInFile === segment;

/**
 * Locates paths in a file read by `loadFast`, with the same answers as
 * `YamlSource`. Where the fast parse could not record a position exactly, it
 * asks `fallback()` (a `yaml` parse of the file, made once, on first use).
 */
export class FastYamlSource implements SourceLocator {
  private lineStarts: number[] | undefined;
  private slow: SourceLocator | undefined;

  constructor(
    private readonly text: string,
    private readonly root: FastNode,
    private readonly fallback: () => SourceLocator,
    private readonly matchKey: KeyMatcher = exactKey,
  ) {}

  locate(path: readonly PropertyKey[]): SourcePosition | undefined {
    const found = this.deepestNode(path);
    if (found === undefined || found.node.start < 0) return this.slowSource().locate(path);
    return this.positionOf(found.node.start);
  }

  locateKey(mapPath: readonly PropertyKey[], key: string): SourcePosition | undefined {
    const found = this.deepestNode(mapPath);
    if (found === undefined || found.node.start < 0) {
      return this.slowSource().locateKey(mapPath, key);
    }
    const { node, complete } = found;
    if (complete && node.keys !== undefined) {
      let index = node.keys.indexOf(key);
      if (index === -1) index = node.keys.findIndex((candidate) => this.matchKey(candidate, key));
      if (index !== -1) return this.positionOf(node.keyStarts![index]!);
    } else if (complete && !node.exact) {
      return this.slowSource().locateKey(mapPath, key);
    }
    return this.positionOf(node.start);
  }

  /** As `YamlSource`'s; undefined when the way passes a node without exact positions. */
  private deepestNode(
    path: readonly PropertyKey[],
  ): { node: FastNode; complete: boolean } | undefined {
    let node = this.root;
    for (const segment of path) {
      if (!node.exact) return undefined;
      let child: FastNode | undefined;
      if (node.items !== undefined) {
        if (typeof segment === 'number') child = node.items[segment];
      } else if (node.keys !== undefined) {
        const name = String(segment);
        let index = node.keys.indexOf(name);
        if (index === -1)
          index = node.keys.findIndex((candidate) => this.matchKey(candidate, name));
        if (index !== -1) child = node.values![index];
      }
      if (child === undefined) return { node, complete: false };
      node = child;
    }
    return { node, complete: true };
  }

  private slowSource(): SourceLocator {
    this.slow ??= this.fallback();
    return this.slow;
  }

  private positionOf(offset: number): SourcePosition {
    if (this.lineStarts === undefined) {
      const starts = [0];
      for (
        let index = this.text.indexOf('\n');
        index !== -1;
        index = this.text.indexOf('\n', index + 1)
      ) {
        starts.push(index + 1);
      }
      this.lineStarts = starts;
    }
    const starts = this.lineStarts;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - starts[low]! + 1 };
  }
}
