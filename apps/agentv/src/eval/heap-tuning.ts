import { setFlagsFromString } from 'node:v8';

/**
 * Runs of more cases than this let V8's young generation grow again. The bin shim
 * (`bin/agentv.mjs`) keeps it at its starting size, which holds the peak memory of an
 * ordinary run down; but a run keeping tens of thousands of results scavenges far more
 * often with a small young generation (a 100,000-case batch spent 11 s instead of 3 s
 * collecting garbage), so large runs get V8's default growth back.
 */
export const SMALL_YOUNG_GENERATION_MAX_CASES = 5000;

/**
 * Runs of more cases than this keep the heap within a quarter of what a full collection found
 * live. Such a run holds every case (and, in a batch, every request) for its whole length, and
 * V8's default lets the heap grow to several times what is live before it collects again: a
 * 100,000-case batch peaked at 250–330 MiB resident. Smaller runs get the default back: their
 * heap is small, and the extra full collections would be a large share of their time.
 */
export const TIGHT_HEAP_MIN_CASES = 20_000;

/**
 * Keeps the heap within a quarter of what is live while an eval run loads its cases, before
 * their number is known: V8 sets the next limit at the end of each full collection, so a
 * limit set after loading would only apply once the heap had grown to the one set while
 * loading. `fitHeapToRun` lifts it again for runs that are not large.
 */
export function keepHeapTightWhileLoading(): void {
  setFlagsFromString('--heap-growing-percent=25');
}

/**
 * A dataset this large (about 5,000 short cases) lets the young generation grow as soon as it
 * is opened, rather than once its cases are loaded: loading them with the young generation at
 * its starting size took ~80 scavenges per 10,000 cases, each promoting what was just read.
 */
export const LARGE_DATASET_BYTES = 384 * 1024;

/** Lets V8's young generation grow while a large dataset (`bytes` long) loads. */
export function fitHeapToDataset(bytes: number): void {
  if (bytes > LARGE_DATASET_BYTES) setFlagsFromString(YOUNG_GENERATION_GROWS);
}

// V8's default factor; the flag is read each time the young generation may grow.
const YOUNG_GENERATION_GROWS = '--semi-space-growth-factor=2';

/** Fits V8's young-generation growth and heap limit to a run of `caseCount` cases. */
export function fitHeapToRun(caseCount: number): void {
  if (caseCount > SMALL_YOUNG_GENERATION_MAX_CASES) setFlagsFromString(YOUNG_GENERATION_GROWS);
  // 0 is V8's own choice of growth.
  if (caseCount <= TIGHT_HEAP_MIN_CASES) setFlagsFromString('--heap-growing-percent=0');
}
