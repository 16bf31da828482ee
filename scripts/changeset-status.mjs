// CI's changeset check: every package changed since the base branch needs a changeset, and
// every pending changeset must name packages that exist. `changeset status` compares with
// a git ref, so this picks one that exists in a fresh clone (`origin/main` on a CI runner,
// `main` in a local clone with no remote) and says which it used. On the base branch
// itself nothing has changed since it, so the check passes.
import { execFileSync, spawnSync } from 'node:child_process';

const BASE = 'main';

function refExists(ref) {
  try {
    execFileSync('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}

// The Version Packages pull request of .github/workflows/release.yml consumes the changesets.
if ((process.env.GITHUB_HEAD_REF ?? '').startsWith('changeset-release/')) {
  console.log('changeset status: skipped on the Version Packages pull request');
  process.exit(0);
}

const since = [`origin/${BASE}`, BASE].find(refExists);
if (since === undefined) {
  console.log(`changeset status: skipped, no ${BASE} or origin/${BASE} branch in this clone`);
  process.exit(0);
}
console.log(`changeset status --since=${since}`);
const result = spawnSync(
  'npx',
  ['--yes', 'pnpm@10.34.8', 'exec', 'changeset', 'status', `--since=${since}`],
  {
    stdio: 'inherit',
  },
);
process.exit(result.status ?? 1);
