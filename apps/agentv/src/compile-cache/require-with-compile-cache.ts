import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

type Compile = (this: Module, content: string, filename: string, ...rest: unknown[]) => unknown;

/** A cache file: the SHA-256 of the bytecode, then the bytecode. */
const DIGEST_BYTES = 32;

/**
 * Requires `entry`, a CommonJS file, and compiles it and every `.cjs` file of its folder it
 * requires (now or later in the run) with V8's code cache kept in `cacheFolder`: one file per
 * source file, named after its name, size and modification time (V8 itself checks only a
 * source's length). Cache files missing or refused by V8 are written when the process exits,
 * so they also hold the functions compiled during the run; each is written to a temp file
 * and renamed, and the files of sources gone or changed since are then removed. Without `cacheFolder`, or when a cache file cannot be read or written, the
 * code is compiled as usual and nothing is said.
 */
export function requireWithCompileCache(entry: string, cacheFolder: string | undefined): unknown {
  if (cacheFolder !== undefined) installCompileHook(path.dirname(entry), cacheFolder);
  return createRequire(entry)(entry);
}

function installCompileHook(folder: string, cacheFolder: string): void {
  // Node's own method (not in its types) that compiles and runs a CommonJS file's source.
  const prototype = Module.prototype as unknown as { _compile: Compile };
  const compile = prototype._compile;
  const pending: { script: vm.Script; file: string }[] = [];
  const hooked: Compile = function (this: Module, content, filename, ...rest) {
    if (path.dirname(filename) !== folder || !filename.endsWith('.cjs')) {
      return compile.call(this, content, filename, ...rest);
    }
    const file = cacheFile(cacheFolder, filename);
    const cachedData = file === undefined ? undefined : readCache(file);
    const script = new vm.Script(Module.wrap(content), {
      filename,
      cachedData,
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    if (file !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) {
      pending.push({ script, file });
    }
    const run = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    const require = createRequire(filename);
    return run.call(this.exports, this.exports, require, this, filename, path.dirname(filename));
  };
  prototype._compile = hooked;
  process.once('exit', () => {
    if (pending.length === 0) return;
    for (const { script, file } of pending) writeCache(file, script);
    removeStaleFiles(cacheFolder, folder);
  });
}

/** `<file name>-<size>-<mtime in ns>.v8`, see `cacheFile`. */
const CACHE_FILE = /^(.+)-(\d+)-(\d+)\.v8$/;

/**
 * Removes the cache files of `cacheFolder` whose source in `folder` is gone or changed (AgentV
 * installed again, or rebuilt): run only after cache files were written, which is when the
 * bundle is new to the cache.
 */
function removeStaleFiles(cacheFolder: string, folder: string): void {
  let names: string[];
  try {
    names = readdirSync(cacheFolder);
  } catch {
    return;
  }
  for (const name of names) {
    const match = CACHE_FILE.exec(name);
    if (match === null) continue;
    let current = false;
    try {
      const { size, mtimeNs } = statSync(path.join(folder, match[1]!), { bigint: true });
      current = String(size) === match[2] && String(mtimeNs) === match[3];
    } catch {
      // Gone from the bundle.
    }
    if (current) continue;
    try {
      rmSync(path.join(cacheFolder, name), { force: true });
    } catch {
      // Left for the next run that writes.
    }
  }
}

function cacheFile(cacheFolder: string, filename: string): string | undefined {
  try {
    const { size, mtimeNs } = statSync(filename, { bigint: true });
    return path.join(cacheFolder, `${path.basename(filename)}-${size}-${mtimeNs}.v8`);
  } catch {
    return undefined;
  }
}

function readCache(file: string): Buffer | undefined {
  try {
    const bytes = readFileSync(file);
    const data = bytes.subarray(DIGEST_BYTES);
    // V8 checks a cache's header but not its body (in release builds): a damaged body would run.
    return digest(data).equals(bytes.subarray(0, DIGEST_BYTES)) ? data : undefined;
  } catch {
    return undefined;
  }
}

function writeCache(file: string, script: vm.Script): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    const data = script.createCachedData();
    writeFileSync(temp, Buffer.concat([digest(data), data]), { mode: 0o600 });
    renameSync(temp, file);
  } catch {
    try {
      rmSync(temp, { force: true });
    } catch {}
  }
}

function digest(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}
