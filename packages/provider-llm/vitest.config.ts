import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Tests start real HTTP servers and processes; timing goals live in `pnpm bench`.
    testTimeout: 30_000,
  },
});
