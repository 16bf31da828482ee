export interface AgentvErrorOptions {
  /** What the user can do about it. */
  hint?: string;
  cause?: unknown;
}

/**
 * Base of every error meant for a user: the message says what happened and
 * why; `hint` says what to do. The CLI prints these as one line plus the hint
 * and exits with code 2, without a stack trace.
 */
export class AgentvError extends Error {
  readonly hint?: string;

  constructor(message: string, options: AgentvErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint;
  }
}

export function isAgentvError(error: unknown): error is AgentvError {
  return error instanceof AgentvError;
}
