import { readFileSync } from 'node:fs';

/** True while `pid` runs; a zombie (exited, not yet reaped) counts as dead. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    // No /proc (macOS): kill(0) succeeding is the best answer available.
    return process.platform !== 'linux';
  }
}
