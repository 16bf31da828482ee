import { rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir, makeTempDirSync } from './make-temp-dir.js';

describe('makeTempDir', () => {
  it.each([
    ['makeTempDir', makeTempDir],
    ['makeTempDirSync', makeTempDirSync],
  ])(
    '%s makes a private folder in the temp directory named after its kind and this process',
    async (_, make) => {
      const dir = await make('cli-batch');
      try {
        expect(dirname(dir)).toBe(tmpdir());
        // The name the watchdog's sweep reads the owner's pid from.
        expect(basename(dir)).toMatch(
          new RegExp(`^agentv-cli-batch-${process.pid}-[A-Za-z0-9]{6}$`),
        );
        expect(statSync(dir).mode & 0o777).toBe(0o700);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
