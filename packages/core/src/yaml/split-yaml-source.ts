import type { SplitSequence } from './split-top-level-sequence.js';
import {
  type KeyMatcher,
  type SourceLocator,
  type SourcePosition,
  YamlSource,
} from './yaml-source.js';

const CACHED_ITEMS = 16;

/**
 * Locates paths in a file whose top-level sequence `key` was parsed item by
 * item: paths into an item re-parse that item (few at a time are kept), so
 * the whole file's syntax tree never has to stay in memory.
 */
export class SplitYamlSource implements SourceLocator {
  private readonly cache = new Map<number, YamlSource>();

  constructor(
    private readonly header: YamlSource,
    private readonly key: string,
    private readonly split: SplitSequence,
    private readonly matchKey?: KeyMatcher,
  ) {}

  locate(path: readonly PropertyKey[]): SourcePosition | undefined {
    if (path[0] !== this.key) return this.header.locate(path);
    const item = this.itemIndex(path);
    if (item === undefined) return this.split.start;
    if (path.length === 2) return this.split.items[item]!.position;
    return this.itemSource(item).locate([0, ...path.slice(2)]);
  }

  locateKey(mapPath: readonly PropertyKey[], key: string): SourcePosition | undefined {
    if (mapPath[0] !== this.key) return this.header.locateKey(mapPath, key);
    const item = this.itemIndex(mapPath);
    if (item === undefined) return this.split.start;
    return this.itemSource(item).locateKey([0, ...mapPath.slice(2)], key);
  }

  private itemIndex(path: readonly PropertyKey[]): number | undefined {
    const index = path[1];
    return path[0] === this.key && typeof index === 'number' && index < this.split.items.length
      ? index
      : undefined;
  }

  private itemSource(index: number): YamlSource {
    let source = this.cache.get(index);
    if (source === undefined) {
      const slice = this.split.items[index]!;
      source = new YamlSource(slice.text, this.matchKey, slice.firstLine);
      if (this.cache.size >= CACHED_ITEMS) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(index, source);
    }
    return source;
  }
}
