/** How often running processes' output sizes are checked. */
export const OUTPUT_POLL_MS = 50;

/** What is checked while its process runs. */
export interface Polled {
  check(running: true): void;
}

const polled = new Set<Polled>();
let timer: NodeJS.Timeout | undefined;

/**
 * Calls `guard.check(true)` every `OUTPUT_POLL_MS` until `stopPolling(guard)`. Every
 * registered guard shares one timer, which does not keep Node running and exists only while
 * a guard is registered: a spawn costs a set insertion, not a timer of its own.
 */
export function pollWhileRunning(guard: Polled): void {
  polled.add(guard);
  if (timer === undefined) {
    timer = setInterval(runChecks, OUTPUT_POLL_MS);
    timer.unref();
  }
}

/** Stops the checks of `guard` (nothing happens when it has none). */
export function stopPolling(guard: Polled): void {
  if (!polled.delete(guard)) return;
  if (polled.size === 0 && timer !== undefined) {
    clearInterval(timer);
    timer = undefined;
  }
}

function runChecks(): void {
  for (const guard of polled) {
    try {
      guard.check(true);
    } catch {
      // An I/O error of one process's capture must not stop the checks of the others; its
      // runner checks the sizes once more when the process has ended.
    }
  }
}
