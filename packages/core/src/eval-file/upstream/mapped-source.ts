import type { SourceLocator, SourcePosition } from '../../yaml/yaml-source.js';

/**
 * Where the parts of a rewritten document came from: a path in the rewritten
 * data (its prefix) → the path of what was written in the file.
 */
export class PathMap {
  private readonly origins = new Map<string, readonly PropertyKey[]>();

  /** Records that `rewritten` (and everything under it) comes from `original`. */
  set(rewritten: readonly PropertyKey[], original: readonly PropertyKey[]): void {
    this.origins.set(keyOf(rewritten), original);
  }

  /** The written path of `path`: its longest recorded prefix replaced by its origin. */
  original(path: readonly PropertyKey[]): readonly PropertyKey[] {
    for (let length = path.length; length > 0; length--) {
      const origin = this.origins.get(keyOf(path.slice(0, length)));
      if (origin !== undefined) return [...origin, ...path.slice(length)];
    }
    return path;
  }
}

function keyOf(path: readonly PropertyKey[]): string {
  return path.map(String).join('\u0000');
}

/**
 * A locator for rewritten data: positions of what the file says, found
 * through `map`; a part made up by the rewrite (a message built from a
 * string `input:`) is located at the nearest written value above it.
 */
export function mappedSource(source: SourceLocator, map: PathMap): SourceLocator {
  const locate = (path: readonly PropertyKey[]): SourcePosition | undefined => {
    const original = map.original(path);
    for (let length = original.length; length >= 0; length--) {
      const position = source.locate(original.slice(0, length));
      if (position !== undefined) return position;
    }
    return undefined;
  };
  return {
    locate,
    locateKey(mapPath, key) {
      const original = map.original([...mapPath, key]);
      const parent = original.slice(0, -1);
      const last = original.at(-1);
      return (
        (typeof last === 'string' ? source.locateKey(parent, last) : undefined) ??
        locate([...mapPath, key])
      );
    },
  };
}
