#!/usr/bin/env node
// Runs the workspace example: a coding agent fixes bugs in a tiny repository, graded by its
// tests, its files and its diff. One case fails on purpose (fix-truncate edits the test), so
// agentv exits with 1 and keeps that case's workspace; for the example that is the expected outcome.
// `--docker` (npm run example:workspace:docker) runs evals/coding-docker.yaml instead: the same
// cases in a `node:20-slim` container (a running Docker engine and `docker pull node:20-slim`).
// Every other argument is passed to `agentv eval`.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const docker = args.includes('--docker');
const { status } = spawnSync(
  process.execPath,
  [
    'apps/agentv/bin/agentv.cjs',
    'eval',
    docker ? 'examples/workspace/evals/coding-docker.yaml' : 'examples/workspace/evals/coding.yaml',
    ...args.filter((arg) => arg !== '--docker'),
  ],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
if (status === 1) {
  console.log(
    '\nfix-truncate fails on purpose: the agent edited the test instead of the code, which the diff grader caught.',
  );
  console.log(
    'Everything worked. Its workspace is kept (listed above) to look at; the diffs are saved beside the result file.',
  );
  process.exit(0);
}
process.exit(status ?? 2);
