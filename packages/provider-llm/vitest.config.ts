import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The files share one process (vitest's default starts a new one for each file): a Node
    // start and a fresh load of the package's modules per file were most of this suite's time.
    // A file that changes what the whole process sees must not share it (CONTRIBUTING, "Setup").
    isolate: false,
    include: ['src/**/*.test.ts'],
    // Tests start real HTTP servers and processes; timing goals live in `pnpm bench`.
    testTimeout: 30_000,
    // Hooks start servers and remove folders; vitest's 10 s for a hook is short on a busy machine.
    hookTimeout: 30_000,
  },
});
