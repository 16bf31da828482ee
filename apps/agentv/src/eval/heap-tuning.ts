import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/**
 * Runs of more cases than this let V8's young generation grow, once, to CAPPED_SEMI_SPACE_MB.
 * The bin shim (`bin/agentv.cjs`) keeps it at its starting size, which holds the peak memory of
 * an ordinary run down; but a run keeping thousands of results scavenges far more often with a
 * small young generation, each scavenge promoting what was just made.
 */
export const SMALL_YOUNG_GENERATION_MAX_CASES = 5000;

/**
 * Runs of more cases than this let the young generation grow as far as V8 lets it (16 MiB
 * semi-spaces), and keep the heap within a quarter of what a full collection found live. Such
 * a run holds every case (and, in a batch, every request) for its whole length: with a capped
 * young generation a 100,000-case batch spent a third more CPU collecting, and with V8's default
 * heap growth it peaked at 250–330 MiB resident. Smaller runs get V8's heap growth back: their
 * heap is small, and the extra full collections would be a large share of their time.
 */
export const TIGHT_HEAP_MIN_CASES = 20_000;

/**
 * Datasets this large in all (about 20,000 short cases) get the young generation and heap of
 * runs over TIGHT_HEAP_MIN_CASES while their cases load: V8 sets the next heap limit at the end
 * of each full collection, so a limit set after loading would only apply once the heap had grown
 * to the one set while loading. Decided from the size, not for every run: kept tight from the
 * start, a 10,000-case dataset paid one or two more full collections while it loaded.
 * `fitHeapToRun` then fits the heap to the number of cases.
 */
export const TIGHT_HEAP_DATASET_BYTES = 1536 * 1024;

/**
 * Datasets this large in all (about 5,000 short cases) let the young generation grow (to
 * CAPPED_SEMI_SPACE_MB) as soon as they are opened, rather than once their cases are loaded:
 * loading them with the young generation at its starting size took ~80 scavenges per 10,000
 * cases, each promoting what was just read.
 */
export const LARGE_DATASET_BYTES = 384 * 1024;

/**
 * The semi-space size (MiB) runs of 5,000–20,000 cases grow the young generation to: twice its
 * starting size, an eighth of V8's maximum. Every page the young generation grows by is memory the
 * process touches for the first time, and a page fault is the dearest thing a short run does on
 * some machines (13 µs per 4 KiB page on a Firecracker VM: the 32 MiB of two full-size semi-spaces
 * cost ~100 ms of a 10,000-case batch). At 4 MiB a 10,000-case batch took ~5,000 fewer faults and
 * ~65 ms less than at 16 MiB, and no more collecting; at 2 MiB another 30 ms less (median of 16
 * interleaved pairs, 14 of them faster; 8 MiB was 41 ms slower, staying at 1 MiB 86 ms slower).
 */
const CAPPED_SEMI_SPACE_MB = 2;

// What the bin shim (`bin/agentv.cjs`) starts with: the young generation does not grow.
const SMALL_YOUNG_GENERATION = '--semi-space-growth-factor=1';
// V8's default factor; the flag is read each time the young generation may grow.
const YOUNG_GENERATION_GROWS = '--semi-space-growth-factor=2';
// The heap may grow to 125% of what the last full collection found live.
const TIGHT_HEAP = '--heap-growing-percent=25';

/** How the young generation may grow now: not, once (capped), or as far as V8 lets it. */
let growth: 'none' | 'capped' | 'full' = 'none';
/** Watches a capped growth until it happened (V8 has no flag for a cap set at run time). */
let capWatch: NodeJS.Timeout | undefined;

/**
 * Lets the young generation grow once, from its starting 1 MiB semi-spaces to
 * CAPPED_SEMI_SPACE_MB: V8 multiplies the size by the growth factor when it grows it, and reads
 * the factor each time, so the factor is put back to 1 as soon as the size changed. A timer
 * looks after every turn of the event loop (loading a dataset takes one per chunk read); if it
 * missed the growth, the young generation grows on as V8 decides, which is what the run had
 * before the cap.
 */
function growYoungGenerationOnce(): void {
  if (growth !== 'none') return;
  const before = semiSpaceMiB();
  if (before === undefined) return;
  growth = 'capped';
  const factor = Math.floor(CAPPED_SEMI_SPACE_MB / before);
  if (factor <= 1) return;
  setFlagsFromString(`--semi-space-growth-factor=${factor}`);
  // It grows while many cases are being made, in the first seconds; past CAP_WATCH_MS it is
  // held where it is, and the timer stops (a long run would call it a thousand times a second).
  const until = Date.now() + CAP_WATCH_MS;
  capWatch = setInterval(() => {
    if (semiSpaceMiB() !== before || Date.now() > until) stopCapWatch(SMALL_YOUNG_GENERATION);
  }, 1);
  capWatch.unref();
}

/** How long a capped growth is waited for (see `growYoungGenerationOnce`). */
const CAP_WATCH_MS = 30_000;

function letYoungGenerationGrow(): void {
  if (growth === 'full') return;
  stopCapWatch(YOUNG_GENERATION_GROWS);
  growth = 'full';
}

function stopCapWatch(flag: string): void {
  if (capWatch !== undefined) clearInterval(capWatch);
  capWatch = undefined;
  setFlagsFromString(flag);
}

/**
 * The young generation's capacity in MiB: one semi-space's (what it allocates into before a
 * scavenge), when V8 reports it. Its `space_size` is what it has committed, which is one
 * semi-space until the first scavenge and two after.
 */
function semiSpaceMiB(): number | undefined {
  const space = getHeapSpaceStatistics().find((each) => each.space_name === 'new_space');
  if (space === undefined) return undefined;
  return Math.ceil((space.space_used_size + space.space_available_size) / (1024 * 1024));
}

/**
 * Fits V8's heap to the datasets a run loads: the function returned is called with each
 * dataset's size before its cases are read (`loadEvalFile`'s `onDatasetSize`).
 */
export function heapFitterForDatasets(): (bytes: number) => void {
  let total = 0;
  return (bytes) => {
    total += bytes;
    if (total > TIGHT_HEAP_DATASET_BYTES) {
      letYoungGenerationGrow();
      setFlagsFromString(TIGHT_HEAP);
    } else if (total > LARGE_DATASET_BYTES) {
      growYoungGenerationOnce();
    }
  };
}

/** Fits V8's young-generation growth and heap limit to a run of `caseCount` cases. */
export function fitHeapToRun(caseCount: number): void {
  if (caseCount > TIGHT_HEAP_MIN_CASES) letYoungGenerationGrow();
  else if (caseCount > SMALL_YOUNG_GENERATION_MAX_CASES) growYoungGenerationOnce();
  // 0 is V8's own choice of growth.
  setFlagsFromString(caseCount > TIGHT_HEAP_MIN_CASES ? TIGHT_HEAP : '--heap-growing-percent=0');
}

/**
 * Puts back the flags this module changed to those a run starts with (the bin's
 * `--semi-space-growth-factor=1`, V8's own heap growth): V8 refuses cached code made under
 * other flags, and the CLI's code cache is written when the process exits, for the next start.
 */
export function restoreHeapFlags(): void {
  stopCapWatch(SMALL_YOUNG_GENERATION);
  growth = 'none';
  setFlagsFromString('--heap-growing-percent=0');
}
