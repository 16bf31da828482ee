import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Many tests start real processes; on a busy 2-core machine vitest's default 5 s guard
    // fails them spuriously. Timing goals live in `pnpm bench`, not here.
    testTimeout: 30_000,
    // Hooks start servers and remove folders; vitest's 10 s for a hook is short on a busy machine.
    hookTimeout: 30_000,
  },
});
