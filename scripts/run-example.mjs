#!/usr/bin/env node
// Runs the quickstart eval. One of its cases fails on purpose, so agentv exits
// with 1 ("a case failed"); for the quickstart that is the expected outcome.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { status } = spawnSync(
  process.execPath,
  [
    'apps/agentv/bin/agentv.cjs',
    'eval',
    'examples/quickstart/evals/support.yaml',
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: 'inherit' },
);
if (status === 1) {
  console.log(
    '\nThe quickstart has one case that fails on purpose (cancel-subscription), so agentv exited with 1.',
  );
  console.log(
    'Everything worked. Next: open examples/quickstart/evals/support.yaml and the result file above.',
  );
}
if (status === 0 || status === 1) {
  console.log('Look at the run in your browser: npm run agentv -- view');
  process.exit(0);
}
process.exit(status ?? 2);
