import type * as Yaml from 'yaml';

let loaded: typeof Yaml | undefined;

/**
 * Loads the `yaml` package, once. It is not imported statically: a file the fast parser
 * (`loadFast`) reads whole never needs it, and loading and compiling it was ~20 ms of every
 * start-up of the CLI. Loaders await this before anything that may build a `YamlSource`.
 */
export async function loadYamlPackage(): Promise<typeof Yaml> {
  loaded ??= await import('yaml');
  return loaded;
}

/** The package `loadYamlPackage` loaded; throws (a bug) when it has not been awaited yet. */
export function loadedYamlPackage(): typeof Yaml {
  if (loaded === undefined) {
    throw new Error('the yaml package was used before loadYamlPackage() finished');
  }
  return loaded;
}
