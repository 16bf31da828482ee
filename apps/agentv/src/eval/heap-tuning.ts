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
 * Datasets this large in all (about 20,000 short cases) keep the heap within a quarter of what
 * is live while their cases load: V8 sets the next limit at the end of each full collection, so
 * a limit set after loading would only apply once the heap had grown to the one set while
 * loading. Decided from the size, not for every run: kept tight from the start, a 10,000-case
 * dataset paid one or two more full collections while it loaded. `fitHeapToRun` then fits the
 * heap to the number of cases.
 */
export const TIGHT_HEAP_DATASET_BYTES = 1536 * 1024;

/**
 * Datasets this large in all (about 5,000 short cases) let the young generation grow as soon as
 * they are opened, rather than once their cases are loaded: loading them with the young
 * generation at its starting size took ~80 scavenges per 10,000 cases, each promoting what was
 * just read.
 */
export const LARGE_DATASET_BYTES = 384 * 1024;

/**
 * Fits V8's heap to the datasets a run loads: the function returned is called with each
 * dataset's size before its cases are read (`loadEvalFile`'s `onDatasetSize`).
 */
export function heapFitterForDatasets(): (bytes: number) => void {
  let total = 0;
  return (bytes) => {
    total += bytes;
    if (total > LARGE_DATASET_BYTES) setFlagsFromString(YOUNG_GENERATION_GROWS);
    if (total > TIGHT_HEAP_DATASET_BYTES) setFlagsFromString(TIGHT_HEAP);
  };
}

// V8's default factor; the flag is read each time the young generation may grow.
const YOUNG_GENERATION_GROWS = '--semi-space-growth-factor=2';
// The heap may grow to 125% of what the last full collection found live.
const TIGHT_HEAP = '--heap-growing-percent=25';

/** Fits V8's young-generation growth and heap limit to a run of `caseCount` cases. */
export function fitHeapToRun(caseCount: number): void {
  if (caseCount > SMALL_YOUNG_GENERATION_MAX_CASES) setFlagsFromString(YOUNG_GENERATION_GROWS);
  // 0 is V8's own choice of growth.
  setFlagsFromString(caseCount > TIGHT_HEAP_MIN_CASES ? TIGHT_HEAP : '--heap-growing-percent=0');
}

/**
 * Puts back the flags this module changed to those a run starts with (the bin's
 * `--semi-space-growth-factor=1`, V8's own heap growth): V8 refuses cached code made under
 * other flags, and the CLI's code cache is written when the process exits, for the next start.
 */
export function restoreHeapFlags(): void {
  setFlagsFromString(SMALL_YOUNG_GENERATION);
  setFlagsFromString('--heap-growing-percent=0');
}

// What the bin shim (`bin/agentv.mjs`) starts with.
const SMALL_YOUNG_GENERATION = '--semi-space-growth-factor=1';
