// `npm run pack`: every published package's tarball in `packed/` (or the folder given as the
// argument), and nothing else there, so that `npm i -D <clone>/packed/*.tgz` installs exactly this
// release (README, "In your own project"; apps/agentv/test/e2e/packages.test.ts packs with this
// script and installs the same way). Run after the build; it packs what `pnpm publish` would.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const destination = path.resolve(process.argv[2] ?? path.join(root, 'packed'));

/** The pnpm running this (`pnpm run …` puts itself on PATH), else the repository's pinned one. */
function pnpmCommand() {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    try {
      if (dir !== '') {
        accessSync(path.join(dir, 'pnpm'), constants.X_OK);
        return [path.join(dir, 'pnpm')];
      }
    } catch {}
  }
  return ['npx', '--yes', 'pnpm@10.34.8'];
}

// Tarballs of an earlier version would be installed beside this one's.
for (const file of existsSync(destination) ? readdirSync(destination) : []) {
  if (file.endsWith('.tgz')) rmSync(path.join(destination, file));
}
const [pnpm, ...pnpmArgs] = pnpmCommand();
const result = spawnSync(
  pnpm,
  [...pnpmArgs, '--recursive', 'pack', '--pack-destination', destination],
  {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  },
);
if (result.status !== 0) process.exit(result.status ?? 1);
for (const file of readdirSync(destination).sort()) {
  if (file.endsWith('.tgz'))
    console.log(path.relative(process.cwd(), path.join(destination, file)));
}
