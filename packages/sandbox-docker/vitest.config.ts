import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One Docker engine for the whole run (started as root; see test-support/global-setup.ts).
    globalSetup: ['./src/test-support/global-setup.ts'],
    // Containers start in a few hundred ms alone, much slower on a busy 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
