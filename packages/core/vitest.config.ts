import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Many tests start real processes; on a busy 2-core machine vitest's default 5 s guard
    // fails them spuriously (and a hook's 10 s one: two-copies.test.ts imports core twice while
    // the other packages' suites run). Timing goals live in `pnpm bench`, not here.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
