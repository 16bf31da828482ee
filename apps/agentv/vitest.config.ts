import { defineConfig } from 'vitest/config';

// End-to-end tests that run cases in containers: they share one Docker engine started for them.
const DOCKER_TESTS = ['test/e2e/sandbox*.test.ts', 'test/e2e/example-workspace-docker.test.ts'];

export default defineConfig({
  test: {
    // End-to-end tests spawn the built CLI and real agents, some ten times in one test; on a busy
    // 2-core machine, with two files at once, 30 s failed such tests spuriously. Timing goals
    // live in `pnpm bench`, not here.
    testTimeout: 60_000,
    // Hooks pack, install and remove whole projects; vitest's 10 s for a hook is short on a busy machine.
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'agentv',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: DOCKER_TESTS,
          // Much of an e2e file's time is spent waiting on what it spawned (the CLI, servers, a
          // timeout it proves), so two files at once keep 2 cores busier; vitest's default on 2
          // cores is one file at a time. Not more: a test's budget is its own, and under load a
          // third file slows every spawned CLI further. Each file has its own folders, servers on
          // free ports and process markers, so files do not see each other.
          maxWorkers: 2,
          // Each of the two processes runs its files one after another (vitest's default starts
          // a new process for each file). No file here changes what its process sees: the CLI
          // runs in processes of its own (CONTRIBUTING, "Setup").
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'docker',
          include: DOCKER_TESTS,
          // One dockerd for the whole run, with a busybox image and a Node image tagged
          // node:20-slim (test/support/docker-setup.ts); started only when a docker test runs.
          globalSetup: ['./test/support/docker-setup.ts'],
          // One file at a time (after the other project's): they share the engine, and a file
          // checks that a run leaves no container behind in it.
          maxWorkers: 1,
          // Containers start in a few hundred ms alone, much slower on a busy 2-core machine.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
