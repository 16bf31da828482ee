import type { SlotForm } from './template-slot.js';

/**
 * The reference that stands for a variable where a placeholder stood: `"$VAR"` as
 * (part of) a word, `${VAR}` inside double quotes or a here-document. The shell
 * expands either to the value without parsing it again: no quote, `$(…)`,
 * backquote or newline in the value has any effect, and a quoted `"$VAR"` is not
 * split into words or matched as a glob.
 */
export function reference(variable: string, form: SlotForm): string {
  return form === 'quoted' || form === 'heredoc' ? `\${${variable}}` : `"$${variable}"`;
}

/**
 * `text` as it must be written inside the backquoted substitutions around it
 * (`levels`, outermost first; true for one inside double quotes), so that each
 * level's backslash removal gives `text` back: `\`, `` ` `` and, inside double
 * quotes, `"` get a backslash per level.
 */
export function inBackquotes(text: string, levels: readonly boolean[]): string {
  let written = text;
  for (let level = levels.length - 1; level >= 0; level--) {
    written = written.replace(levels[level] ? /[\\`"]/g : /[\\`]/g, '\\$&');
  }
  return written;
}
