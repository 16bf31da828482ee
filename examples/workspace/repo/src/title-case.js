/** `the quick fox` → `The Quick Fox`. */
export function titleCase(text) {
  return text
    .split(' ')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(2))
    .join(' ');
}
