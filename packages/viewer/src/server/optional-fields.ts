// Fields a result line may hold that older AgentV versions do not write (`tags`, `failure_class`,
// a grader's `metric`): read when present, of whatever reasonable shape, absent otherwise.

/** The strings of a value that should be a string list; anything else gives none. */
export function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value)) return [];
  return value.filter((item): item is string => typeof item === 'string');
}

/** A case's failure class: a string, or an object naming it (`{ class }`, `{ name }`); else null. */
export function failureClassOf(value: unknown): string | null {
  if (typeof value === 'string') return value === '' ? null : value;
  if (value !== null && typeof value === 'object') {
    const named = value as Record<string, unknown>;
    for (const key of ['class', 'name', 'kind']) {
      if (typeof named[key] === 'string' && named[key] !== '') return named[key] as string;
    }
  }
  return null;
}

/** The metric a grader's result counts under: its `metric` when it has one, else its type. */
export function metricOf(grader: { type: string } & Record<string, unknown>): string {
  return typeof grader.metric === 'string' && grader.metric !== '' ? grader.metric : grader.type;
}
