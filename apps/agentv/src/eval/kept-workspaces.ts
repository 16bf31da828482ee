import { terminalText } from '@agentv/results';

/** A workspace the run kept, and the case (and target) it was for. */
export interface KeptWorkspace {
  path: string;
  /** The case id, with its target when the run has several. */
  label: string;
}

/**
 * The end-of-run list of kept workspaces (failed and errored cases', or every
 * case's with `--keep-workspaces`), one per line with its path; nothing when none
 * was kept. Case ids come from files: one escaped line each.
 */
export function writeKeptWorkspaces(
  kept: readonly KeptWorkspace[],
  stream: { write(text: string): unknown },
): void {
  if (kept.length === 0) return;
  stream.write(
    `Kept ${kept.length} ${kept.length === 1 ? 'workspace' : 'workspaces'} (remove ${kept.length === 1 ? 'it' : 'them'} when done; agentv does not):\n`,
  );
  for (const { path, label } of kept) {
    stream.write(`  ${terminalText(label)}  ${terminalText(path)}\n`);
  }
}
