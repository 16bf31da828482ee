const cache = new Map<string, RegExp>();

/**
 * Converts a glob to an anchored regular expression over `/`-separated paths:
 * `**` matches any number of segments (including none when followed by `/`),
 * `*` any run of characters within a segment, `?` one character other than `/`.
 * Every other character matches itself.
 */
export function globToRegExp(pattern: string): RegExp {
  const cached = cache.get(pattern);
  if (cached) return cached;
  let source = '';
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]!;
    if (char === '*' && pattern[index + 1] === '*') {
      const atSegmentStart = index === 0 || pattern[index - 1] === '/';
      index++;
      if (atSegmentStart && pattern[index + 1] === '/') {
        index++;
        source += '(?:.*/)?';
      } else {
        source += '.*';
      }
    } else if (char === '*') {
      source += '[^/]*';
    } else if (char === '?') {
      source += '[^/]';
    } else {
      source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  const regExp = new RegExp(`^${source}$`);
  cache.set(pattern, regExp);
  return regExp;
}

/** True when `filePath` (`\` treated as `/`) matches the glob `pattern`. */
export function matchesGlob(filePath: string, pattern: string): boolean {
  return globToRegExp(pattern).test(filePath.replaceAll('\\', '/'));
}

/** True when `filePath` matches at least one of `patterns`. */
export function matchesAnyGlob(filePath: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => matchesGlob(filePath, pattern));
}
