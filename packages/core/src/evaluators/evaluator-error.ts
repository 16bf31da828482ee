import { AgentvError, type AgentvErrorOptions, isAgentvError } from '../errors/agentv-error.js';
import type { EvaluatorResult } from './evaluator.js';

export interface EvaluatorErrorOptions extends AgentvErrorOptions {
  /** Results of a composite's members, kept on the errored result. */
  members?: EvaluatorResult[];
}

/** An evaluator could not run (script crashed, reply unparseable); the case becomes an error. */
export class EvaluatorError extends AgentvError {
  override readonly kind = 'evaluator';
  readonly members?: EvaluatorResult[];

  constructor(message: string, options: EvaluatorErrorOptions = {}) {
    super(message, options);
    if (options.members !== undefined) this.members = options.members;
  }
}

/** Whether `error` is an `EvaluatorError` from any installed copy of `@agentv/core`. */
export function isEvaluatorError(error: unknown): error is EvaluatorError {
  return isAgentvError(error, 'evaluator');
}
