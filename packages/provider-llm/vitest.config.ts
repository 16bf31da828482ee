import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Tests start real HTTP servers and processes; timing goals live in `pnpm bench`.
    testTimeout: 30_000,
    // Hooks start servers and remove folders; vitest's 10 s for a hook is short on a busy machine.
    hookTimeout: 30_000,
  },
});
