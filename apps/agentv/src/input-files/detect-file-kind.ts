import { open } from 'node:fs/promises';
import path from 'node:path';
import { displayPath, EVAL_FILE_KEYS, isAtOrInside, UsageError } from '@agentv/core/internal';
import { closestMatch } from '@agentv/core/provider-utils';
import { terminalText } from '@agentv/results';

/**
 * The kinds of input file `agentv validate` meets: the three it checks, and
 * workspace files (`workspace: ./workspace.yaml`), checked through the eval
 * files that name them.
 */
export type InputFileKind = 'eval' | 'targets' | 'config' | 'workspace';

/** How much of a file is read to find its `$schema` line. */
const HEAD_BYTES = 64 * 1024;

const SCHEMA_KEY = /^["']?\$schema["']?\s*:\s*["']?([^"'\s#,}]+)/m;
/** A key at the start of a line: a top-level key of a block-style YAML mapping. */
const TOP_LEVEL_KEY = /^["']?([A-Za-z_$][\w$-]*)["']?[ \t]*:/gm;
/** The top-level keys of a workspace file (and those upstream AgentV removed or AgentV refuses). */
const WORKSPACE_FILE_KEYS = new Set([
  'template',
  'repos',
  'isolation',
  'mode',
  'hooks',
  'docker',
  'env',
  'path',
  'static_path',
  'static',
  'pool',
]);
const SCHEMA_MODELINE =
  /^#\s*yaml-language-server:\s*\$schema=\S*?\b(eval|targets|config)\.schema\.json/m;

/**
 * What kind of input file `text` (the start of the file) is: by its top-level
 * `$schema` value (`agentv-eval-v2`, `agentv-targets-v2.2`, `agentv-config-v2`,
 * or another version of those), else by a `yaml-language-server` schema
 * comment naming one of AgentV's schema files, else by its keys (a file
 * whose top-level keys are all keys of a `workspace:` block, `template` or
 * `repos` among them, is a workspace file), else by name and place —
 * `targets.yaml` / `targets.yml` anywhere are targets files,
 * `.agentv/config.y*ml` is a config file, any other file is an eval file.
 */
export function detectFileKind(filePath: string, text: string): InputFileKind {
  const schema = SCHEMA_KEY.exec(text)?.[1];
  if (schema?.startsWith('agentv-eval')) return 'eval';
  if (schema?.startsWith('agentv-targets')) return 'targets';
  if (schema?.startsWith('agentv-config')) return 'config';
  const modeline = SCHEMA_MODELINE.exec(text)?.[1];
  if (modeline === 'eval' || modeline === 'targets' || modeline === 'config') return modeline;
  if (isWorkspaceFile(text)) return 'workspace';
  const name = path.basename(filePath).toLowerCase();
  if (name === 'targets.yaml' || name === 'targets.yml') return 'targets';
  const inAgentvDir = path.basename(path.dirname(filePath)) === '.agentv';
  if (inAgentvDir && (name === 'config.yaml' || name === 'config.yml')) return 'config';
  return 'eval';
}

/** Reads the start of a file and detects its kind; an unreadable file is detected by name (its loader reports it). */
export async function detectFileKindOf(filePath: string): Promise<InputFileKind> {
  return detectFileKind(filePath, (await readStart(filePath)).text);
}

/**
 * True when `text` (a whole YAML file) is some other tool's file, not one of AgentV's: it has
 * top-level keys, none of them a key of an eval file or a near miss of one (`evalCases`,
 * `eval_case`: a broken eval file is checked, and its mistake reported), and no AgentV `$schema`
 * (a GitHub workflow's `name`, `on`, `jobs`; a Kubernetes manifest's `apiVersion`, `kind`…). Only
 * a file that would otherwise be taken for an eval file is asked about: targets and config files
 * are known by their names.
 */
export function isOtherToolsYaml(filePath: string, text: string): boolean {
  if (detectFileKind(filePath, text) !== 'eval') return false;
  if (SCHEMA_KEY.test(text) || SCHEMA_MODELINE.test(text)) return false;
  let keys = 0;
  for (const match of text.matchAll(TOP_LEVEL_KEY)) {
    const key = match[1]!;
    if (EVAL_FILE_KEY_SPELLINGS.has(spelling(key))) return false;
    if (closestMatch(key, EVAL_FILE_KEY_LIST) !== undefined) return false;
    keys++;
  }
  return keys > 0;
}

const EVAL_FILE_KEY_LIST = [...EVAL_FILE_KEYS];
/** A key as written in any case, with or without `_` and `-`. */
const spelling = (key: string) => key.toLowerCase().replace(/[-_]/g, '');
const EVAL_FILE_KEY_SPELLINGS = new Set(EVAL_FILE_KEY_LIST.map(spelling));

/** How many files are read at once when YAML files found in folders are sorted. */
const READ_AT_ONCE = 32;

/**
 * Splits YAML files found by searching a folder into those `agentv validate` checks and those
 * of other tools (`isOtherToolsYaml`; read whole, so a file longer than what is read of it is
 * always checked), which it skips and names.
 */
export async function withoutOtherToolsYaml(
  files: readonly string[],
): Promise<{ files: string[]; skipped: string[] }> {
  const kept: string[] = [];
  const skipped: string[] = [];
  for (let from = 0; from < files.length; from += READ_AT_ONCE) {
    const batch = files.slice(from, from + READ_AT_ONCE);
    const starts = await Promise.all(batch.map((file) => readStart(file)));
    batch.forEach((file, index) => {
      const { text, whole } = starts[index]!;
      (whole && isOtherToolsYaml(file, text) ? skipped : kept).push(file);
    });
  }
  return { files: kept, skipped };
}

/**
 * The start of a file (up to HEAD_BYTES, without a byte order mark), and whether that is all of
 * it; '' when it cannot be read (the loader for its kind says why).
 */
async function readStart(filePath: string): Promise<{ text: string; whole: boolean }> {
  try {
    const handle = await open(filePath, 'r');
    try {
      const buffer = Buffer.alloc(HEAD_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
      const text = buffer.subarray(0, bytesRead).toString('utf8');
      return {
        text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text,
        whole: bytesRead < HEAD_BYTES,
      };
    } finally {
      await handle.close();
    }
  } catch {
    // Missing or unreadable: the loader for the kind its name suggests says why.
    return { text: '', whole: false };
  }
}

/** True when every top-level key of `text` is a workspace key, and it names a template or repos. */
function isWorkspaceFile(text: string): boolean {
  let sources = false;
  for (const match of text.matchAll(TOP_LEVEL_KEY)) {
    const key = match[1]!;
    if (!WORKSPACE_FILE_KEYS.has(key)) return false;
    if (key === 'template' || key === 'repos') sources = true;
  }
  return sources;
}

/**
 * YAML files found by searching `folder` for eval files (`agentv validate`, `agentv eval`), without
 * other tools' files (`withoutOtherToolsYaml`), which go to `skipped`. A folder with YAML files,
 * all of them other tools', and no other input (`otherInputs`: targets and config files) is a
 * usage error that names them.
 */
export async function evalInputsIn(
  folder: string,
  found: readonly string[],
  cwd: string,
  skipped: string[],
  otherInputs = 0,
): Promise<string[]> {
  const sorted = await withoutOtherToolsYaml(found);
  skipped.push(...sorted.skipped);
  if (sorted.files.length === 0 && otherInputs === 0 && sorted.skipped.length > 0) {
    // File names are the user's, any bytes: none may start a line or move the cursor.
    const names = sorted.skipped
      .slice(0, 3)
      .map((file) => terminalText(path.relative(folder, file)));
    const more = sorted.skipped.length > 3 ? ` and ${sorted.skipped.length - 3} more` : '';
    const count = sorted.skipped.length;
    throw new UsageError(
      `no eval files in "${terminalText(displayPath(cwd, folder))}": its ${count} YAML file${count === 1 ? '' : 's'} (${names.join(', ')}${more}) ${count === 1 ? 'is' : 'are'} not AgentV's`,
      {
        hint: "none of their top-level keys is one of an eval file's (such as evalcases, cases, tests); give a file by name to check it as an eval file anyway",
      },
    );
  }
  return sorted.files;
}

/** How many skipped files a report names. */
const SKIPPED_SHOWN = 5;

/** The line naming the YAML files of other tools a folder search skipped, the first few of them. */
export function skippedYamlLine(skipped: readonly string[], cwd: string): string {
  const shown = skipped.slice(0, SKIPPED_SHOWN).map((file) => terminalText(displayPath(cwd, file)));
  const more = skipped.length > SKIPPED_SHOWN ? ` and ${skipped.length - SKIPPED_SHOWN} more` : '';
  const count = skipped.length;
  return `skipped ${count} YAML file${count === 1 ? '' : 's'} that ${count === 1 ? 'is' : 'are'} not AgentV's (no top-level key of an eval file): ${shown.join(', ')}${more}`;
}

/**
 * The skipped files that are not inside a workspace template or repository of `evalFiles`:
 * those hold the agent's material (the project loader sets their YAML aside too), not files to
 * name.
 */
export function outsideWorkspaces(
  skipped: readonly string[],
  evalFiles: readonly { value?: { workspaceSources?: string[] } }[],
): string[] {
  const sources = evalFiles.flatMap((file) => file.value?.workspaceSources ?? []);
  return skipped.filter(
    (file) => !sources.some((source) => isAtOrInside(path.resolve(file), path.resolve(source))),
  );
}
