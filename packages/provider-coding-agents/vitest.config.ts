import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The files share one process (vitest's default starts a new one for each file): a Node
    // start and a fresh load of the package's modules per file were most of this suite's time.
    // A file that changes what the whole process sees must not share it (CONTRIBUTING, "Setup").
    isolate: false,
    // Tests run the real agents' CLIs against local model servers; on a busy 2-core machine a
    // native agent takes seconds to start. Timing goals live in `pnpm bench`, not here.
    testTimeout: 120_000,
    hookTimeout: 600_000,
    // Installs each pinned agent CLI once into the cache folder (test-support/agent-cli.ts).
    globalSetup: ['src/test-support/global-setup.ts'],
  },
});
