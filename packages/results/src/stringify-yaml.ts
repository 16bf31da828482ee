import { stringify } from 'yaml';

/**
 * Renders a value as one YAML document for people to read: multiline strings
 * become literal block scalars (`|`), long lines are never folded, and strings
 * YAML would misread (`"yes"`, `"1.0"`, `"a: b"`) are quoted, so the document
 * parses back to an equal value. Ends with a newline; `undefined` properties are
 * left out.
 */
export function stringifyYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0, blockQuote: 'literal', aliasDuplicateObjects: false });
}
