import type { Issue } from '../errors/input-issue.js';

/** Reports a problem at a path relative to a workspace block (its key, when given, located). */
export type Report = (
  severity: Issue['severity'],
  relative: readonly PropertyKey[],
  key: string | undefined,
  message: string,
  hint: string,
  showKey?: boolean,
) => void;

/** Reports each key of `value` not in `known` (nor in `skip`), with "did you mean". */
export type UnknownKeys = (
  value: Record<string, unknown>,
  relative: PropertyKey[],
  known: readonly string[],
  skip?: readonly string[],
) => void;
