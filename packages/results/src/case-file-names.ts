import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomically } from './write-file-atomically.js';

/** What identifies a case across a run: its id, and where it came from when known. */
export interface CaseIdentity {
  evalId: string;
  dataset?: string;
  /** Absolute path of the eval file; two files may hold cases with the same id. */
  evalFile?: string;
}

const MAX_STEM_BYTES = 100;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/i;

/**
 * Turns a case id (or any text) into a string that is safe as part of a file
 * name on every common file system: letters, digits, `.`, `_` and `-` are kept,
 * every other run of characters becomes `_`, leading dots and trailing dots are
 * replaced, and the result is at most 100 bytes of UTF-8. The result never
 * contains a path separator and is never `.`, `..` or empty. When anything had
 * to change, a short hash of the original text is appended so different ids stay
 * different: `a/b` → `a_b-1c4d2e`, while `refund-001` stays `refund-001`.
 */
export function safeFileStem(text: string): string {
  let stem = text
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}._-]+/gu, '_')
    .replace(/^\.+/, '_')
    .replace(/\.+$/, '_');
  while (Buffer.byteLength(stem, 'utf8') > MAX_STEM_BYTES) stem = [...stem].slice(0, -1).join('');
  if (stem === '' || stem === '_' || WINDOWS_RESERVED.test(stem)) stem = `case${stem}`;
  return stem === text ? stem : `${stem}-${shortHash(text)}`;
}

/**
 * Gives every case of a run its own file stem, so artifacts of two cases never
 * share a name, even when two eval files use the same id or two ids sanitise
 * alike. A case keeps its stem for the whole run (every attempt uses it). The
 * first case with an id gets `safeFileStem(id)`; another case with the same stem
 * gets its dataset in front (`billing__refund-001`), then a counter (`-2`).
 * Names are compared case-insensitively, as macOS and Windows do.
 */
export function createCaseFileNames(): { stemFor(identity: CaseIdentity): string } {
  const stems = new Map<string, string>();
  const taken = new Set<string>();
  return {
    stemFor(identity) {
      const key = `${identity.evalFile ?? identity.dataset ?? ''}\u0000${identity.evalId}`;
      const known = stems.get(key);
      if (known !== undefined) return known;
      const base = safeFileStem(identity.evalId);
      const candidates = [base];
      if (identity.dataset !== undefined) {
        candidates.push(`${safeFileStem(identity.dataset)}__${base}`);
      }
      let stem = candidates.find((candidate) => !taken.has(candidate.toLowerCase()));
      for (let counter = 2; stem === undefined; counter++) {
        const numbered = `${candidates[candidates.length - 1]}-${counter}`;
        if (!taken.has(numbered.toLowerCase())) stem = numbered;
      }
      taken.add(stem.toLowerCase());
      stems.set(key, stem);
      return stem;
    },
  };
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 6);
}

/** A folder of per-case files (prompt and trace dumps, workspace changes). */
export interface CaseFileFolder {
  /** Absolute path of the folder. */
  readonly directory: string;
  /** The case's file stem for this run (see `createCaseFileNames`). */
  stemFor(identity: CaseIdentity): string;
  /**
   * Writes `value` as pretty-printed JSON to `name` in the folder (created on
   * the first write), replacing a file of that name whole (a failed write
   * leaves no part of a file), and resolves to its path.
   */
  writeJson(name: string, value: unknown): Promise<string>;
  /** Writes `text` as it is to `name` in the folder, as `writeJson` does. */
  writeText(name: string, text: string): Promise<string>;
}

/** Opens `directory` for per-case files named by `createCaseFileNames`; nothing is created yet. */
export function createCaseFileFolder(directory: string): CaseFileFolder {
  const folder = path.resolve(directory);
  const names = createCaseFileNames();
  let created: Promise<unknown> | undefined;
  const write = async (name: string, text: string) => {
    const filePath = path.join(folder, name);
    if (path.dirname(filePath) !== folder) {
      throw new Error(`refusing to write "${name}" outside ${folder}`);
    }
    created ??= mkdir(folder, { recursive: true });
    await created;
    await writeFileAtomically(filePath, text);
    return filePath;
  };
  return {
    directory: folder,
    stemFor: (identity) => names.stemFor(identity),
    writeJson: (name, value) => write(name, `${JSON.stringify(value, null, 2)}\n`),
    writeText: write,
  };
}
