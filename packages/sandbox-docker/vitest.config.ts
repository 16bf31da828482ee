import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The files share one process (vitest's default starts a new one for each file): a Node
    // start and a fresh load of the package's modules per file were most of this suite's time.
    // A file that changes what the whole process sees must not share it (CONTRIBUTING, "Setup").
    isolate: false,
    // One Docker engine for the whole run (started as root; see test-support/global-setup.ts).
    globalSetup: ['./src/test-support/global-setup.ts'],
    // Containers start in a few hundred ms alone, much slower on a busy 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
