export interface AgentvErrorOptions {
  /** What the user can do about it. */
  hint?: string;
  cause?: unknown;
}

/** Which AgentV error an error is; see `AgentvError.kind`. */
export type AgentvErrorKind =
  | 'agentv'
  | 'usage'
  | 'invalid-input'
  | 'provider'
  | 'evaluator'
  | 'unknown-provider'
  | 'unknown-target'
  | 'workspace-setup'
  | 'workspace-case';

/**
 * Brand on every AgentV error. `Symbol.for` gives the same symbol in every copy
 * of `@agentv/core` a process loads (a provider package may resolve its own
 * copy), so errors are recognised by the brand and `kind`, not `instanceof`.
 */
const AGENTV_ERROR: unique symbol = Symbol.for('agentv.error');

/**
 * Base of every error meant for a user: the message says what happened and
 * why; `hint` says what to do. The CLI prints these as one line plus the hint
 * and exits with code 2, without a stack trace.
 */
export class AgentvError extends Error {
  readonly hint?: string;
  /** Which AgentV error this is, for checks that must work across copies of core. */
  readonly kind: AgentvErrorKind = 'agentv';
  readonly [AGENTV_ERROR] = true;

  constructor(message: string, options: AgentvErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint;
  }
}

/**
 * Whether `error` is an AgentV error (of `kind`, when given), thrown by this or
 * any other installed copy of `@agentv/core`.
 */
export function isAgentvError(error: unknown, kind?: AgentvErrorKind): error is AgentvError {
  if (typeof error !== 'object' || error === null) return false;
  if ((error as { [AGENTV_ERROR]?: unknown })[AGENTV_ERROR] !== true) return false;
  return kind === undefined || (error as AgentvError).kind === kind;
}
