import { readFileSync } from 'node:fs';

/** The app's version, read from its package.json. */
export function readVersion(): string {
  const packageJson = JSON.parse(
    readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
  ) as { version: string };
  return packageJson.version;
}
