import { readdirSync, readFileSync } from 'node:fs';

/** Text in every spare launcher's command line. */
export const LAUNCHER_TEXT = 'read -r script <&3';

/** Children of `parent` that are spare launchers: their pid and the cgroup they are in. */
export function sparesOf(parent: number): { pid: number; cgroup: string }[] {
  const found: { pid: number; cgroup: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== parent) continue;
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(LAUNCHER_TEXT)) continue;
      const cgroup = readFileSync(`/proc/${entry}/cgroup`, 'utf8')
        .split('\n')
        .find((line) => line.startsWith('0::'));
      found.push({ pid: Number(entry), cgroup: cgroup?.slice(3) ?? '' });
    } catch {
      // Exited meanwhile.
    }
  }
  return found;
}

/** Waits (generously: the machine may be busy) until `test` holds. */
export async function until<T>(
  get: () => T,
  test: (value: T) => boolean,
  what: string,
): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = get();
    if (test(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
