import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

type Compile = (this: Module, content: string, filename: string, ...rest: unknown[]) => unknown;
/** Node's loader of a CommonJS file by extension (not in its types). */
type Load = (this: unknown, module: Module, filename: string) => unknown;

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
  const pending: { script: vm.Script; file: string }[] = [];
  const ours = (filename: string) => path.dirname(filename) === folder && filename.endsWith('.cjs');
  /** Compiles `wrapped` (the file's source in Node's CommonJS wrapper) with the cache, and runs it. */
  const compileAndRun = (module: Module, wrapped: string, filename: string) => {
    const file = cacheFile(cacheFolder, filename);
    const cachedData = file === undefined ? undefined : readCache(file);
    const script = new vm.Script(wrapped, {
      filename,
      cachedData,
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    if (file !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) {
      pending.push({ script, file });
    }
    const run = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    const require = createRequire(filename);
    return run.call(
      module.exports,
      module.exports,
      require,
      module,
      filename,
      path.dirname(filename),
    );
  };

  // The bundle's files are read here, wrapped as they are read: one string, no text decoded as
  // UTF-8 and then copied once more into the wrapper (~1 MB each for an `eval`).
  const extensions = (Module as unknown as { _extensions: Record<string, Load> })._extensions;
  const load = extensions['.js']!;
  extensions['.js'] = function (this: unknown, module, filename) {
    const wrapped = ours(filename) ? readWrapped(filename) : undefined;
    if (wrapped === undefined) return load.call(this, module, filename);
    compileAndRun(module, wrapped, filename);
  };
  // What `readWrapped` leaves to Node's loader (a file that is not ASCII, say) still comes here.
  const prototype = Module.prototype as unknown as { _compile: Compile };
  const compile = prototype._compile;
  prototype._compile = function (this: Module, content, filename, ...rest) {
    if (!ours(filename)) return compile.call(this, content, filename, ...rest);
    return compileAndRun(this, Module.wrap(content), filename);
  };
  process.once('exit', () => {
    if (pending.length === 0) return;
    for (const { script, file } of pending) writeCache(file, script);
    removeStaleFiles(cacheFolder, folder);
  });
}

const [WRAPPER_HEAD, WRAPPER_TAIL] = Module.wrap('\0').split('\0') as [string, string];

/** The first size of the buffer files are read into: the largest chunk of an `eval` fits. */
const SCRATCH_BYTES = 640 * 1024;
let scratch: Buffer | undefined;

/**
 * The file's text inside Node's CommonJS wrapper (`Module.wrap`), read into one buffer and
 * decoded as Latin-1, which is what its bytes mean when they are all ASCII (the bundle's are:
 * `scripts/bundle.mjs` escapes the rest). Undefined for a file that is not ASCII or cannot be
 * read: Node's loader then reads it, and says what is wrong.
 */
function readWrapped(filename: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(filename, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const head = WRAPPER_HEAD.length;
    const length = head + size + WRAPPER_TAIL.length;
    // One buffer for every file (its pages are touched once), as large as the largest so far.
    if (scratch === undefined || scratch.length < length) {
      scratch = Buffer.allocUnsafeSlow(Math.max(length, SCRATCH_BYTES));
      scratch.write(WRAPPER_HEAD, 0, 'latin1');
    }
    const bytes = scratch;
    let read = 0;
    while (read < size) {
      const got = readSync(fd, bytes, head + read, size - read, read);
      if (got === 0) break;
      read += got;
    }
    if (read !== size || !isAscii(bytes.subarray(head, head + size))) return undefined;
    bytes.write(WRAPPER_TAIL, head + size, 'latin1');
    // A copy: the string does not keep the buffer.
    return bytes.toString('latin1', 0, length);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
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
