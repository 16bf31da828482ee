import {
  type Document,
  isMap,
  isScalar,
  isSeq,
  parseDocument,
  Scalar,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';

/** What `migrateEvalText` did. */
export interface Migration {
  /** The file in the 2.7+ format (comments kept). */
  text: string;
  /** One line per rewrite, e.g. `evalcases → tests`. */
  changes: string[];
  /** YAML syntax errors: nothing was rewritten. */
  errors: string[];
}

/** Our grader types written with upstream's names (options renamed alike). */
const GRADER_NAMES: Record<string, { type: string; rename?: Record<string, string> }> = {
  code_judge: { type: 'code-grader', rename: { script: 'command' } },
  llm_judge: { type: 'llm-grader' },
  is_json: { type: 'is-json' },
  tool_trajectory: { type: 'tool-trajectory' },
  regex: { type: 'regex', rename: { pattern: 'value' } },
  rubric: { type: 'rubrics', rename: { rubrics: 'criteria' } },
  composite: { type: 'composite', rename: { evaluators: 'assertions' } },
};

/**
 * Rewrites an `agentv-eval-v2` (AgentV 1.x) eval file into the format of
 * AgentV 2.7+ (`tests:` of `input`, `criteria`, `expected_output`,
 * `assertions`), keeping comments and layout where the keys only change name.
 * The result loads to the same cases, graded alike. A file already in the new
 * format comes back unchanged.
 */
export function migrateEvalText(text: string): Migration {
  const doc = parseDocument(text) as unknown as Document;
  if (doc.errors.length > 0) {
    return { text, changes: [], errors: doc.errors.map((error) => error.message) };
  }
  const changes: string[] = [];
  const root = doc.contents;
  if (!isMap(root)) return { text, changes, errors: [] };
  rename(root, '$schema', undefined, changes, '$schema removed');
  rename(root, 'evalcases', 'tests', changes);
  const execution = root.get('execution');
  if (isMap(execution) && execution.has('evaluators') && !root.has('assertions')) {
    const comment = commentOf(execution, 'evaluators');
    const graders = execution.get('evaluators', true);
    execution.delete('evaluators');
    if (execution.items.length === 0) root.delete('execution');
    root.set('assertions', graders);
    setComment(root, 'assertions', comment);
    changes.push('execution.evaluators → assertions');
  }
  const fileGraders = root.get('assertions');
  if (isSeq(fileGraders)) migrateGraders(fileGraders, changes);
  const cases = root.get('tests');
  if (isSeq(cases)) {
    for (const item of cases.items) {
      if (!isMap(item)) continue;
      rename(item, 'input_messages', 'input', changes);
      rename(item, 'expected_messages', 'expected_output', changes);
      rename(item, 'expected_outcome', 'criteria', changes);
      rename(item, 'outcome', 'criteria', changes);
      const caseExecution = item.get('execution');
      if (isMap(caseExecution) && caseExecution.has('evaluators') && !item.has('evaluators')) {
        item.set('assertions', caseExecution.get('evaluators', true));
        caseExecution.delete('evaluators');
        if (caseExecution.items.length === 0) item.delete('execution');
        changes.push('execution.evaluators → assertions');
      }
      rename(item, 'evaluators', 'assertions', changes);
      const graders = item.get('assertions');
      if (isSeq(graders)) migrateGraders(graders, changes);
    }
  }
  return { text: doc.toString({ lineWidth: 0 }), changes: [...new Set(changes)], errors: [] };
}

function migrateGraders(list: YAMLSeq, changes: string[]): void {
  for (const grader of list.items) {
    if (!isMap(grader)) continue;
    const type = grader.get('type');
    if (typeof type !== 'string') continue;
    const target = GRADER_NAMES[type];
    if (target === undefined) continue;
    if (type === 'rubric' && !grader.has('rubrics')) continue;
    if (target.type !== type) {
      grader.set('type', target.type);
      changes.push(`type: ${type} → ${target.type}`);
    }
    for (const [ours, theirs] of Object.entries(target.rename ?? {})) {
      rename(grader, ours, theirs, changes);
    }
    const prompt = grader.get('prompt');
    if (type === 'llm_judge' && typeof prompt === 'string' && isPromptFile(prompt)) {
      // Upstream reads a bare prompt as text; `file://` names a file.
      grader.set('prompt', `file://${prompt.trim()}`);
    }
    const members = grader.get('assertions');
    if (type === 'composite' && isSeq(members)) migrateGraders(members, changes);
    const aggregator = grader.get('aggregator');
    if (isMap(aggregator)) {
      const kind = aggregator.get('type');
      if (kind === 'code_judge') {
        aggregator.set('type', 'code-grader');
        rename(aggregator, 'script', 'command', changes);
      } else if (kind === 'llm_judge') aggregator.set('type', 'llm-grader');
    }
    const criteria = grader.get('criteria');
    if (type === 'rubric' && isSeq(criteria)) {
      for (const item of criteria.items) {
        if (!isMap(item)) continue;
        rename(item, 'description', 'outcome', changes);
        rename(item, 'expected_outcome', 'outcome', changes);
      }
    }
  }
}

/** Same rule as the loader's `promptFileOf`: one line naming a path or a file with an extension. */
function isPromptFile(prompt: string): boolean {
  const text = prompt.trim();
  if (text === '' || /[\r\n]/.test(text) || text.includes('{{')) return false;
  return /^\.{0,2}[\\/]/.test(text) || /^[^\s]+\.[A-Za-z0-9]{1,8}$/.test(text);
}

/** The comment above `key` in `map`. */
function commentOf(map: YAMLMap, key: string): string | undefined {
  const index = map.items.findIndex((item) => isScalar(item.key) && item.key.value === key);
  const pair = map.items[index];
  const own = isScalar(pair?.key) ? pair.key.commentBefore : undefined;
  // yaml keeps a comment above a mapping's first key on the mapping.
  return own ?? (index === 0 ? (map.commentBefore ?? undefined) : undefined);
}

function setComment(map: YAMLMap, key: string, comment: string | undefined): void {
  if (comment === undefined) return;
  const pair = map.items.find((item) => (isScalar(item.key) ? item.key.value : item.key) === key);
  if (pair === undefined) return;
  if (!isScalar(pair.key)) pair.key = new Scalar(key);
  (pair.key as Scalar).commentBefore = comment;
}

/** Renames `from` to `to` in place (keeping its comments); `to` undefined removes the pair. */
function rename(
  map: YAMLMap,
  from: string,
  to: string | undefined,
  changes: string[],
  change = `${from} → ${to}`,
): void {
  const pair = map.items.find((item) => isScalar(item.key) && item.key.value === from);
  if (pair === undefined) return;
  if (to === undefined) map.delete(from);
  else if (map.has(to)) return;
  else if (isScalar(pair.key)) pair.key.value = to;
  changes.push(change);
}
