/**
 * The signals that stop a run the way Ctrl-C does: SIGINT, SIGTERM, and SIGHUP, which a
 * closed terminal or SSH session sends (left to Node, it would end AgentV at once, with its
 * agents still running).
 */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Calls `handler` on every stop signal; returns the function that stops listening. */
export function onStopSignals(handler: (signal: NodeJS.Signals) => void): () => void {
  for (const signal of STOP_SIGNALS) process.on(signal, handler);
  return () => {
    for (const signal of STOP_SIGNALS) process.off(signal, handler);
  };
}
