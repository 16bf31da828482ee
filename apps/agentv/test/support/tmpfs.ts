import { execFile } from 'node:child_process';
import { appendFile, mkdir } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Tests that mount a tmpfs (a real full disk) need root. CI runs as root and
 * must run them; elsewhere they are skipped when not root.
 */
export const cannotMount = process.getuid?.() !== 0 && !process.env.CI;

/** A small tmpfs mounted on a folder: a disk that really fills up. */
export interface Tmpfs {
  dir: string;
  /** Changes its size, keeping its files (`4m` gives a full disk room again). */
  resize(size: string): Promise<void>;
  /** Writes `name` until the disk is full. */
  fill(name?: string): Promise<void>;
  unmount(): Promise<void>;
}

/** Mounts a tmpfs of `size` (`256k`) on `dir`, creating the folder. */
export async function mountTmpfs(dir: string, size: string): Promise<Tmpfs> {
  await mkdir(dir, { recursive: true });
  await run('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  let mounted = true;
  return {
    dir,
    resize: async (next) => {
      await run('mount', ['-o', `remount,size=${next}`, dir]);
    },
    fill: async (name = 'filler') => {
      const chunk = Buffer.alloc(4096, 'x');
      for (;;) {
        try {
          await appendFile(`${dir}/${name}`, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') return;
          throw error;
        }
      }
    },
    unmount: async () => {
      if (!mounted) return;
      mounted = false;
      // Lazy: a process the test started may still hold a file open there.
      await run('umount', ['-l', dir]);
    },
  };
}
