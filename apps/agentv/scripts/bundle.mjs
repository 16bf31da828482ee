// Bundles the CLI into `bundle/` after `tsc` has built `dist/`: loading ~350 separate modules
// (ours, zod's, yaml's) costs node ~150 ms per run; one graph of a few chunks loads in a third of
// that. `dist/` stays as tsc wrote it, for `import { runCli } from 'agentv'` and the types.
// The CLI's graph is CommonJS (`cli.cjs` and its chunks), which `bin/agentv.cjs` loads with V8's
// code cache (`src/load-cli-bundle.ts`, bundled as `load-cli-bundle.cjs`); the eval-loading
// worker and the OpenTelemetry export process are a second build, in ES modules, beside it.
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
import { builtinModules } from 'node:module';
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

/**
 * CommonJS has no `import.meta`: rolldown rewrites `import.meta.url` itself, and this rewrites
 * `import.meta.resolve('<specifier>')` (the viewer finds its client through its own name) to
 * the same URL found by `require.resolve`. Any other use of `import.meta` fails the build.
 */
const importMetaInCommonJs = {
  name: 'import-meta-in-commonjs',
  transform(code) {
    if (!code.includes('import.meta.resolve(')) return null;
    return code.replace(
      /import\.meta\.resolve\(('[^']+'|"[^"]+")\)/g,
      'require("node:url").pathToFileURL(require.resolve($1)).href',
    );
  },
};

/**
 * A dynamic `import()` left in the CommonJS bundle (rolldown keeps it for Node's own modules)
 * runs through the host's dynamic-import callback, which a script compiled from V8's code cache
 * does not get on Node 20 (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING). Node's modules are required
 * instead, and any other `import()` left fails the build.
 */
const requireNodeModules = {
  name: 'require-node-modules',
  renderChunk(code, chunk) {
    const out = code.replace(/(?<![\w$.])import\((["'])([\w:/]+)\1\)/g, (text, quote, specifier) =>
      builtinModules.includes(specifier.replace(/^node:/, ''))
        ? `Promise.resolve().then(() => require(${quote}${specifier}${quote}))`
        : text,
    );
    const left = /(?<![\w$.])import\(\s*["'`]/.exec(out);
    if (left !== null) {
      throw new Error(`${chunk.fileName}: a dynamic import() is left in the CommonJS bundle`);
    }
    return out;
  },
};

function failOnWarning(level, log) {
  if (level === 'warn') throw new Error(`rolldown: ${log.message}`);
}

const ENTRIES = {
  cli: 'dist/main.js',
  'load-eval-file-worker': 'dist/eval/load-eval-file-worker.js',
  'otel-export-process': 'dist/eval/otel-export-process.js',
};
const options = { platform: 'node', external: EXTERNAL, onLog: failOnWarning };
// Node reads every chunk of a run's graph at start-up: ASCII-only text (non-ASCII written as
// \u escapes) decodes faster and makes one-byte strings for V8 to parse, and without the JSDoc
// comments there is ~15% less of it. Licence comments stay.
const text = { charset: 'ascii', comments: { legal: true, annotation: false, jsdoc: false } };

// A first pass, not written, tells which commands and entries reach each module.
const { output: firstPass } = await build({
  input: ENTRIES,
  ...options,
  onLog: () => {},
  write: false,
  output: { format: 'esm', ...text },
});
const groups = chunkGroups(firstPass);

rmSync('bundle', { recursive: true, force: true });
// The CLI in CommonJS, which `bin/agentv.cjs` loads with V8's code cache
// (`src/load-cli-bundle.ts`): Node 20 has no code cache for ES modules.
await build({
  input: { cli: ENTRIES.cli },
  ...options,
  plugins: [importMetaInCommonJs],
  output: {
    dir: 'bundle',
    format: 'cjs',
    plugins: [requireNodeModules],
    entryFileNames: '[name].cjs',
    chunkFileNames: '[name]-[hash].cjs',
    ...text,
    codeSplitting: { groups },
  },
});
// What `bin/agentv.cjs` requires: the loader of the bundle above (its code cache included) and
// the version, in CommonJS of their own. An ES-module bin made every run start Node's ES-module
// loader and read four modules of `dist/` without a code cache (~10 ms a run).
await build({
  input: { version: 'dist/version.js', 'load-cli-bundle': 'dist/load-cli-bundle.js' },
  ...options,
  output: {
    dir: 'bundle',
    format: 'cjs',
    entryFileNames: '[name].cjs',
    chunkFileNames: '[name]-[hash].cjs',
    ...text,
  },
});
// The eval-loading worker and the OpenTelemetry export process start as ES modules of their own.
await build({
  input: {
    'load-eval-file-worker': ENTRIES['load-eval-file-worker'],
    'otel-export-process': ENTRIES['otel-export-process'],
  },
  ...options,
  output: {
    dir: 'bundle',
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
    ...text,
  },
});

/**
 * The chunks of the `eval` command's graph. Left to itself, rolldown makes one chunk per set of
 * commands sharing some modules, and `agentv eval` loaded 34 files; each costs node time to
 * resolve, read, compile and link (~20 ms for the 34 together). Here what eval shares is split
 * by who else needs it, in a few chunks: what the result commands (compare, results, view) read
 * too, what the eval-loading worker runs too, what validate checks too, what grade runs too.
 * The small modules init and migrate share with it keep a chunk of their own, so that those
 * commands do not load eval's code, and what every command uses (the CLI's own graph included)
 * is one chunk. Other commands' code is left to rolldown. A group takes a module's
 * dependencies too, so groups of modules more entries reach come first: they take theirs first.
 */
function chunkGroups(chunks) {
  const byFile = new Map(
    chunks.filter((chunk) => chunk.type === 'chunk').map((c) => [c.fileName, c]),
  );
  const commandOf = (chunk) => {
    if (chunk.isEntry) return chunk.name;
    const match = /[\\/]dist[\\/]commands[\\/]([\w-]+)\.js$/.exec(chunk.facadeModuleId ?? '');
    return match === null ? undefined : match[1];
  };
  const reachedBy = new Map();
  const entryModules = new Set();
  for (const entry of byFile.values()) {
    if (!entry.isEntry && !entry.isDynamicEntry) continue;
    entryModules.add(entry.facadeModuleId);
    const name = commandOf(entry);
    if (name === undefined) continue;
    const seen = new Set();
    const visit = (chunk) => {
      if (seen.has(chunk.fileName)) return;
      seen.add(chunk.fileName);
      for (const id of chunk.moduleIds) {
        if (!reachedBy.has(id)) reachedBy.set(id, new Set());
        reachedBy.get(id).add(name);
      }
      for (const file of chunk.imports) if (byFile.has(file)) visit(byFile.get(file));
    };
    visit(entry);
  }
  const COMMANDS = ['eval', 'grade', 'validate', 'compare', 'results', 'view', 'init', 'migrate'];
  const groupOf = (id) => {
    const by = reachedBy.get(id);
    if (by === undefined || entryModules.has(id)) return undefined;
    if (by.has('cli') || COMMANDS.every((command) => by.has(command))) return 'common';
    // The OpenTelemetry export process loads what it shares with the commands, nothing more.
    if (by.has('otel-export-process')) return by.size === 1 ? undefined : 'otel';
    if (!by.has('eval') || by.size === 1) return undefined;
    if (by.has('init') || by.has('migrate')) return 'eval-init';
    if (by.has('compare') || by.has('results') || by.has('view')) return 'eval-results';
    if (by.has('load-eval-file-worker')) return 'eval-load';
    if (by.has('validate')) return 'eval-check';
    return 'eval-run';
  };
  const order = [
    'common',
    'otel',
    'eval-init',
    'eval-results',
    'eval-load',
    'eval-check',
    'eval-run',
  ];
  return order.map((name, index) => ({
    name,
    test: (id) => groupOf(id) === name,
    priority: order.length - index,
  }));
}
