import { setFlagsFromString } from 'node:v8';

/**
 * Runs of more cases than this let V8's young generation grow again. The bin shim
 * (`bin/agentv.mjs`) keeps it at its starting size, which holds the peak memory of an
 * ordinary run down; but a run keeping tens of thousands of results scavenges far more
 * often with a small young generation (a 100,000-case batch spent 11 s instead of 3 s
 * collecting garbage), so large runs get V8's default growth back.
 */
export const SMALL_YOUNG_GENERATION_MAX_CASES = 5000;

/** Restores V8's default young-generation growth when `caseCount` makes a large run. */
export function fitHeapToRun(caseCount: number): void {
  if (caseCount > SMALL_YOUNG_GENERATION_MAX_CASES) {
    // V8's default factor; the flag is read each time the young generation may grow.
    setFlagsFromString('--semi-space-growth-factor=2');
  }
}
