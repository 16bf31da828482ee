import type { PlannedCase } from './plan-run.js';
import type { RunState } from './run-state.js';

/** What every step of one case gets: the case, the state of its run and when the case started. */
export interface CaseContext {
  planned: PlannedCase;
  run: RunState;
  /** `Date.now()` when the case started; results report the time since. */
  started: number;
}
