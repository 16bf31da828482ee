/**
 * The candidate closest to `word` by edit distance (ignoring case), for a
 * "did you mean" hint; undefined when none is within `maxDistance` (default: a
 * third of the word's length, at least 1), i.e. when a typo is unlikely.
 */
export function closestMatch(
  word: string,
  candidates: readonly string[],
  maxDistance = Math.max(1, Math.floor(word.length / 3)),
): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  const normalized = word.toLowerCase();
  for (const candidate of candidates) {
    const distance = editDistance(normalized, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= maxDistance ? best : undefined;
}

/**
 * Edit distance where inserting, deleting or changing a character, or swapping two
 * neighbouring ones (`modle` → `model`, a common typo), each cost 1.
 */
function editDistance(a: string, b: string): number {
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        current[j] = Math.min(current[j]!, beforePrevious[j - 2]! + 1);
      }
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length]!;
}
