import { open } from 'node:fs/promises';
import path from 'node:path';
import { EVAL_FILE_KEYS } from '@agentv/core/internal';

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
  return detectFileKind(filePath, await readHead(filePath));
}

/**
 * True when `text` (the start of a YAML file) is some other tool's file, not one of AgentV's: it
 * has top-level keys, none of them a key of an eval file (a GitHub workflow's `name`, `on`,
 * `jobs`; a Kubernetes manifest's `apiVersion`, `kind`…), and no AgentV `$schema`. Only a file
 * that would otherwise be taken for an eval file is asked about: targets and config files are
 * known by their names.
 */
export function isOtherToolsYaml(filePath: string, text: string): boolean {
  if (detectFileKind(filePath, text) !== 'eval') return false;
  if (SCHEMA_KEY.test(text) || SCHEMA_MODELINE.test(text)) return false;
  let keys = 0;
  for (const match of text.matchAll(TOP_LEVEL_KEY)) {
    if (EVAL_FILE_KEYS.has(match[1]!)) return false;
    keys++;
  }
  return keys > 0;
}

/**
 * Splits YAML files found by searching a folder into those `agentv validate` checks and those
 * of other tools (`isOtherToolsYaml`), which it skips and names.
 */
export async function withoutOtherToolsYaml(
  files: readonly string[],
): Promise<{ files: string[]; skipped: string[] }> {
  const heads = await Promise.all(files.map((file) => readHead(file)));
  const kept: string[] = [];
  const skipped: string[] = [];
  files.forEach((file, index) => {
    (isOtherToolsYaml(file, heads[index]!) ? skipped : kept).push(file);
  });
  return { files: kept, skipped };
}

/** The start of a file; '' when it cannot be read (the loader for its kind says why). */
async function readHead(filePath: string): Promise<string> {
  let head = '';
  try {
    const handle = await open(filePath, 'r');
    try {
      const buffer = Buffer.alloc(HEAD_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
      head = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    // Missing or unreadable: the loader for the kind its name suggests says why.
  }
  return head;
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
