import { itemVariableName } from './placeholder-variables.js';
import { scanCommandTemplate } from './scan-command-template.js';
import { refusalProblem, type TemplateProblem } from './template-refusal.js';
import { inBackquotes, reference } from './variable-reference.js';

/** A `files_format` read once: the text of file `n` (from 1) of a list placeholder. */
export interface CompiledFilesFormat {
  problems: TemplateProblem[];
  /** The format with `{path}` and `{basename}` replaced by references to file `index`'s variables. */
  render(index: number): string;
}

// In a files format: group 1 never matches (formats have no escape), group 2 is the token.
const FORMAT_TOKEN_AT = /(?!)()|\{(path|basename)\}/y;

/**
 * Compiles `format` (a `files_format` or `attachments_format`) for the list
 * placeholder `name` standing as a word of the command: the format's own text is
 * command-line text as the user wrote it, read as `sh` reads arguments, and its
 * `{path}` / `{basename}` become `AGENTV_<name>_<n>` / `AGENTV_<name>_<n>_BASENAME`
 * references, in the form the quotes they stand in call for (`--file="{path}"`
 * works). `setting` names the format in problems.
 */
export function compileFilesFormat(
  format: string,
  name: string,
  setting: string,
): CompiledFilesFormat {
  if (format === '{path}') {
    return { problems: [], render: (index) => `"$${itemVariableName(name, index)}"` };
  }
  const scanned = scanCommandTemplate(format, FORMAT_TOKEN_AT, true);
  const problems: TemplateProblem[] = [];
  if (scanned.unclosed) {
    problems.push({
      message: `an unclosed ${scanned.unclosed.what} (at character ${scanned.unclosed.at + 1}) hides where {path} stands`,
      hint: `close it; ${setting} is command-line text, e.g. "--file {path}" or "--file=\\"{path}\\""`,
    });
  }
  for (const slot of scanned.slots) {
    if (slot.refusal === undefined) continue;
    problems.push(refusalProblem([slot.name], slot.refusal, format, itemVariableName(name, 1)));
  }
  const literals: string[] = [];
  let last = 0;
  for (const slot of scanned.slots) {
    literals.push(format.slice(last, slot.start));
    last = slot.end;
  }
  literals.push(format.slice(last));
  return {
    problems,
    render(index) {
      let text = literals[0]!;
      scanned.slots.forEach((slot, position) => {
        const variable = itemVariableName(name, index, slot.name === 'basename');
        text +=
          inBackquotes(reference(variable, slot.form), slot.backquotes) + literals[position + 1]!;
      });
      return text;
    },
  };
}
