/** Hits and misses kept from one grader's reply (an LLM judge's or a code judge's). */
export const MAX_JUDGE_ITEMS = 4;

/** Characters kept of one hit or miss. */
export const MAX_JUDGE_ITEM_CHARS = 500;

/**
 * A judge's hits or misses as a result keeps them: the first `MAX_JUDGE_ITEMS`,
 * each cut to `MAX_JUDGE_ITEM_CHARS`, and when more were given a last item
 * saying how many were left out (`… and 12 more`), so a judge that lists
 * thousands of items cannot swell every result line and report.
 */
export function capJudgeItems(items: readonly string[]): string[] {
  const kept = items.slice(0, MAX_JUDGE_ITEMS).map(cutItem);
  const left = items.length - kept.length;
  if (left > 0) kept.push(`… and ${left} more`);
  return kept;
}

function cutItem(item: string): string {
  if (item.length <= MAX_JUDGE_ITEM_CHARS) return item;
  // Not inside a surrogate pair: the cut text stays valid UTF-16.
  let end = MAX_JUDGE_ITEM_CHARS - 1;
  const last = item.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${item.slice(0, end)}…`;
}
