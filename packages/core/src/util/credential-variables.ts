/**
 * Words of a variable name (split at `_`, `-` and `.`) that mark it as a
 * credential: `OPENAI_API_KEY`, `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`,
 * `DB_PASSWORD`, `GOOGLE_APPLICATION_CREDENTIALS`.
 */
export const CREDENTIAL_NAME_WORDS: readonly string[] = Object.freeze([
  'KEY',
  'APIKEY',
  'TOKEN',
  'SECRET',
  'SECRETS',
  'PASSWORD',
  'PASSWD',
  'PASSPHRASE',
  'CREDENTIAL',
  'CREDENTIALS',
]);

/** Endings of a name's last word that mark a credential written without `_`: `PGPASSWORD`, `GHTOKEN`. */
const CREDENTIAL_ENDINGS = ['APIKEY', 'TOKEN', 'SECRET', 'PASSWORD'];

/**
 * Credential values shorter than this are not masked: a `*_TOKEN` set to
 * `true` or `1` would otherwise garble every line that says "true".
 */
export const MIN_CREDENTIAL_LENGTH = 8;

const WORDS = new Set(CREDENTIAL_NAME_WORDS);

/**
 * True when `name` looks like it holds a credential: one of its words is in
 * `CREDENTIAL_NAME_WORDS`, its last word ends like one (`PGPASSWORD`), or it
 * ends in `_PWD` (`MYSQL_PWD`; `PWD` alone is the current directory).
 */
export function isCredentialVariable(name: string): boolean {
  const words = name.toUpperCase().split(/[_.-]+/);
  if (words.some((word) => WORDS.has(word))) return true;
  const last = words.at(-1) ?? '';
  if (words.length > 1 && last === 'PWD') return true;
  return CREDENTIAL_ENDINGS.some((ending) => last.endsWith(ending));
}

/**
 * The values of the credential variables of `env` (see `isCredentialVariable`)
 * that are at least `MIN_CREDENTIAL_LENGTH` characters long (blanks around
 * them not counted), each once.
 */
export function credentialValues(env: Readonly<Record<string, string | undefined>>): string[] {
  const values = new Set<string>();
  for (const name in env) {
    const value = env[name];
    // Measured without surrounding blanks: eight spaces are no credential.
    if (value === undefined || value.trim().length < MIN_CREDENTIAL_LENGTH) continue;
    if (isCredentialVariable(name)) values.add(value);
  }
  return [...values];
}
