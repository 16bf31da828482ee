/** How often running processes' output sizes are checked. */
export const OUTPUT_POLL_MS = 50;

const checks = new Set<() => void>();
let timer: NodeJS.Timeout | undefined;

/**
 * Calls `check` every `OUTPUT_POLL_MS` until the returned function is called.
 * Every registered check shares one timer, which does not keep Node running
 * and exists only while a check is registered: a spawn costs a set insertion,
 * not a timer of its own.
 */
export function pollWhileRunning(check: () => void): () => void {
  checks.add(check);
  if (timer === undefined) {
    timer = setInterval(runChecks, OUTPUT_POLL_MS);
    timer.unref();
  }
  return () => {
    checks.delete(check);
    if (checks.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

function runChecks(): void {
  for (const check of checks) {
    try {
      check();
    } catch {
      // An I/O error of one process's capture must not stop the checks of the others; its
      // runner checks the sizes once more when the process has ended.
    }
  }
}
