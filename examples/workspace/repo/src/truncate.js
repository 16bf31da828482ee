/** Cuts `text` to at most `max` characters, ending with `…` when it was cut. */
export function truncate(text, max) {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
