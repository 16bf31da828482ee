// Bundles the CLI into `bundle/` after `tsc` has built `dist/`: loading ~350 separate ES modules
// (ours, zod's, yaml's) costs node ~150 ms per run; one graph of a few chunks loads in a third of
// that. `dist/` stays as tsc wrote it, for `import { runCli } from 'agentv'` and the types.
//
// Layout contract (the code relies on it): every file of the bundle sits directly in `bundle/`,
// one level below the package root like `dist/*.js`, so `new URL('../package.json', import.meta.url)`
// and the eval-loading worker's `new URL('./load-eval-file-worker.js', import.meta.url)` (and the
// OpenTelemetry export process's `./otel-export-process.js`) resolve
// the same from any chunk. The AI SDK lands in chunks reached only through its dynamic imports, so it
// loads only when an LLM target or judge runs (apps/agentv/test/e2e/llm-provider.test.ts checks).
//
// What the bundled packages load at run time with `createRequire(import.meta.url)` (which rolldown
// does not follow) stays outside the bundle: EXTERNAL lists them, and this package depends on each,
// so they resolve from `bundle/` as from the package that requires them. (Test: a json_schema
// grader run by the built CLI, apps/agentv/test/e2e/grader-options.test.ts.)
import { readFileSync, rmSync } from 'node:fs';
import { build } from 'rolldown';

/**
 * Packages required lazily by core (`json_schema` loads ajv on first use), and the Docker engine
 * client of `@agentv/sandbox-docker` (dockerode brings ssh2 and optional native modules a bundle
 * cannot hold). The sandbox package itself is bundled, in a chunk loaded only by a run with
 * `workspace.docker`: left outside, it would load a second, unbundled copy of core (~1 s).
 * `@opentelemetry/otlp-transformer` holds the OTLP protobuf messages `@agentv/otel` requires.
 */
const EXTERNAL = ['ajv', 'dockerode', 'tar-fs', '@opentelemetry/otlp-transformer'];
const { dependencies } = JSON.parse(readFileSync('package.json', 'utf8'));
for (const name of EXTERNAL) {
  if (dependencies[name] === undefined) {
    throw new Error(`${name} stays outside the bundle, so agentv must depend on it`);
  }
}

rmSync('bundle', { recursive: true, force: true });
await build({
  input: {
    cli: 'dist/main.js',
    'load-eval-file-worker': 'dist/eval/load-eval-file-worker.js',
    'otel-export-process': 'dist/eval/otel-export-process.js',
  },
  platform: 'node',
  external: EXTERNAL,
  logLevel: 'warn',
  output: {
    dir: 'bundle',
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
  },
});
