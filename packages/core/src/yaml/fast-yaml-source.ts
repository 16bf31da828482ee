import type { FastLoad, FastNode } from './fast-yaml.js';
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
    private readonly load: FastLoad,
    private readonly fallback: () => SourceLocator,
    private readonly matchKey: KeyMatcher = exactKey,
  ) {}

  locate(path: readonly PropertyKey[]): SourcePosition | undefined {
    const found = this.deepestNode(path);
    const start = found === undefined ? -1 : this.load.frames.startOf(found.index);
    if (start < 0) return this.slowSource().locate(path);
    return this.positionOf(start);
  }

  locateKey(mapPath: readonly PropertyKey[], key: string): SourcePosition | undefined {
    const found = this.deepestNode(mapPath);
    const node = found === undefined ? undefined : this.load.frames.expand(found.index);
    if (node === undefined || node.start < 0) return this.slowSource().locateKey(mapPath, key);
    if (found!.complete && node.keys !== undefined) {
      let index = node.keys.indexOf(key);
      if (index === -1) index = node.keys.findIndex((candidate) => this.matchKey(candidate, key));
      if (index !== -1) return this.positionOf(node.keyStarts![index]!);
    } else if (found!.complete && !node.exact) {
      return this.slowSource().locateKey(mapPath, key);
    }
    return this.positionOf(node.start);
  }

  /**
   * As `YamlSource`'s, as a node number; undefined when the way passes a node
   * without exact positions.
   */
  private deepestNode(
    path: readonly PropertyKey[],
  ): { index: number; complete: boolean } | undefined {
    const frames = this.load.frames;
    let index = this.load.root;
    for (let depth = 0; depth < path.length; depth++) {
      const segment = path[depth]!;
      const node: FastNode = frames.expand(index);
      if (!node.exact) return undefined;
      let child: number | undefined;
      if (node.items !== undefined) {
        if (typeof segment === 'number') child = node.items[segment];
      } else if (node.keys !== undefined) {
        const name = String(segment);
        let at = node.keys.indexOf(name);
        if (at === -1) at = node.keys.findIndex((candidate) => this.matchKey(candidate, name));
        if (at !== -1) child = node.values![at];
      }
      if (child === undefined) return { index, complete: false };
      index = child;
    }
    return { index, complete: true };
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
