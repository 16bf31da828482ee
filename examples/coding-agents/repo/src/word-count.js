/** The number of words in `text`: runs of characters between whitespace. */
export function wordCount(_text) {
  throw new Error('not implemented');
}
