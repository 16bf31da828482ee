// Characters XML 1.0 does not allow at all, not even as character references.
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Escapes text for XML element content or (with `attribute`) a double- or
 * single-quoted attribute value. Characters XML 1.0 forbids are written as
 * visible `\u001b`-style text, lone surrogates as U+FFFD; in attributes line
 * breaks and tabs become character references so parsers keep them.
 */
export function escapeXml(text: string, attribute = false): string {
  const escaped = text
    .replace(LONE_SURROGATE, '\uFFFD')
    .replace(FORBIDDEN, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
  if (!attribute) return escaped;
  return escaped
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;')
    .replace(/\t/g, '&#9;');
}
