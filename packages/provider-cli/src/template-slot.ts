import type { Refusal } from './template-refusal.js';

/**
 * How the shell reads the place a placeholder stands, which decides the form of
 * the variable reference it becomes: `word` (unquoted, alone or inside a word)
 * and `single` (`'{PROMPT}'`, the slot spanning the quotes) take `"$VAR"`;
 * `quoted` (inside `"…"`) and `heredoc` (an unquoted here-document body) take `${VAR}`.
 */
export type SlotForm = 'word' | 'quoted' | 'single' | 'heredoc';

/** A placeholder (`{NAME}`) or an escape (`{{NAME}}`, written as `{NAME}`) in a template. */
export interface TemplateSlot {
  kind: 'placeholder' | 'escape';
  name: string;
  /** Offsets in the template: the token, or for `single` the quoted string around it. */
  start: number;
  end: number;
  form: SlotForm;
  /**
   * The backquoted command substitutions around it, outermost first: true for one
   * inside double quotes. Text put there is escaped once per level.
   */
  backquotes: readonly boolean[];
  /** Set when AgentV cannot prove the value would never be parsed as code there. */
  refusal?: Refusal;
}

/** What `scanCommandTemplate` found. */
export interface ScannedTemplate {
  /** Every placeholder and escape, in template order. */
  slots: TemplateSlot[];
  /** The first quote or substitution left open (`"`, `'`, `$(`, `` ` ``…) and its offset. */
  unclosed?: { what: string; at: number };
}

/** What a scan reads: the template, or the text of a backquoted substitution inside it. */
export interface Source {
  text: string;
  /** The template offset of each character (backquotes remove backslashes). */
  origin?: readonly number[];
}

/** Where a scan stands: the backquote levels around it, and who collects its placeholders. */
export interface Context {
  backquotes: readonly boolean[];
  /** Receives every placeholder found, for the words and regions around it. */
  collect: (slot: TemplateSlot) => void;
}

/** Text and expansions of a word (or a quoted part of one) as it is read. */
export interface Accumulator {
  text: string;
  expands: boolean;
}
