import { configDefaults, defineConfig } from 'vitest/config';

// Files that set process-wide state before importing (`AGENTV_CGROUPS=0`) or depend on the first
// process this process starts (a spawn failure that the spawn helper, started after 16 calls,
// would take instead): each keeps a process of its own.
const OWN_PROCESS = ['src/cli-provider-direct.test.ts', 'src/run-command.test.ts'];

export default defineConfig({
  test: {
    // Many tests start real processes; on a busy 2-core machine vitest's default 5 s guard
    // fails them spuriously. Timing goals live in `pnpm bench`, not here.
    testTimeout: 30_000,
    // Hooks start servers and remove folders; vitest's 10 s for a hook is short on a busy machine.
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'provider-cli',
          exclude: [...configDefaults.exclude, ...OWN_PROCESS],
          // The other files share one process (vitest's default starts a new one for each
          // file): a Node start and a fresh load of the package's modules per file.
          // CONTRIBUTING ("Setup") says which files must not share it.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'provider-cli/own-process', include: OWN_PROCESS } },
    ],
  },
});
