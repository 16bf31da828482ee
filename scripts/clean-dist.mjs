// Removes the package's dist/ before a build, so files whose source was deleted or
// renamed never reach a published tarball (tsc only adds and overwrites).
import { rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
