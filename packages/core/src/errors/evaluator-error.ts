import { AgentvError } from './agentv-error.js';

/** An evaluator could not run (script crashed, reply unparseable); the case becomes an error. */
export class EvaluatorError extends AgentvError {}
