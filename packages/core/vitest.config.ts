import { configDefaults, defineConfig } from 'vitest/config';

// Tests of process-wide state that is set up once per process (the spawn helper, the spare
// launcher, the watchdog, call cgroups, read from the environment at their first use; some files
// set that environment before importing): each file keeps a process of its own.
const OWN_PROCESS = ['src/process/**/*.test.ts'];

export default defineConfig({
  test: {
    // Many tests start real processes; on a busy 2-core machine vitest's default 5 s guard
    // fails them spuriously (and a hook's 10 s one: two-copies.test.ts imports core twice while
    // the other packages' suites run). Timing goals live in `pnpm bench`, not here.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'core',
          exclude: [...configDefaults.exclude, ...OWN_PROCESS],
          // The other files share one process (vitest's default starts a new one for each
          // file): a Node start and a fresh load of core's modules per file were about half of
          // this suite's time. CONTRIBUTING ("Setup") says which files must not share it.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'core/own-process', include: OWN_PROCESS } },
    ],
  },
});
