import { AgentvError } from './agentv-error.js';

/** The command line itself is wrong (bad flag value, no matching files). */
export class UsageError extends AgentvError {}
