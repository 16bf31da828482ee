import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // End-to-end tests spawn the built CLI and real agents.
    testTimeout: 30_000,
  },
});
