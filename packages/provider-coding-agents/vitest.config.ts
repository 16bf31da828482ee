import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Tests run the real agents' CLIs against local model servers; on a busy 2-core machine a
    // native agent takes seconds to start. Timing goals live in `pnpm bench`, not here.
    testTimeout: 120_000,
    hookTimeout: 600_000,
    // Installs each pinned agent CLI once into the cache folder (test-support/agent-cli.ts).
    globalSetup: ['src/test-support/global-setup.ts'],
  },
});
