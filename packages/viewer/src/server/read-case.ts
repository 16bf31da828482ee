import { open, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { safeFileStem } from '@agentv/results';
import type { ArtifactLink, CaseResponse } from '../shared/api-types.js';
import type { ResultFileIndex } from './result-file-index.js';

/**
 * One case of a run, read again from its line, with what the run saved beside
 * the result file for it: its workspace changes (`<file>.workspaces/`) and links
 * to its saved files (workspace diff, agent transcripts). `fileHref` turns an
 * absolute path into the link the client follows.
 */
export async function readCase(
  index: ResultFileIndex,
  line: number,
  fileHref: (absolute: string) => string,
): Promise<CaseResponse | undefined> {
  const at = index.caseOfLine(line);
  const where = at === -1 ? undefined : index.lineAt(at);
  if (where === undefined) return undefined;
  const handle = await open(index.file, 'r');
  let text: string;
  try {
    const buffer = Buffer.alloc(where.length);
    await handle.read(buffer, 0, where.length, where.offset);
    text = buffer.toString('utf8');
  } finally {
    await handle.close();
  }
  const record = JSON.parse(text) as Record<string, unknown>;
  const stem = index.file.replace(/\.jsonl$/i, '');
  const prefixes = casePrefixes(record);
  const artifacts: ArtifactLink[] = [];
  let workspace: CaseResponse['workspace'] = null;
  const workspaces = `${stem}.workspaces`;
  for (const name of await matchingFiles(workspaces, prefixes)) {
    const full = path.join(workspaces, name);
    artifacts.push({ label: `workspace changes: ${name}`, href: fileHref(full) });
    if (workspace === null && name.endsWith('.json')) workspace = await readChanges(full, record);
  }
  const transcripts = `${stem}.transcripts`;
  for (const name of await matchingFiles(transcripts, prefixes)) {
    artifacts.push({ label: `transcript: ${name}`, href: fileHref(path.join(transcripts, name)) });
  }
  return { run: index.key, line: where.line, record, workspace, artifacts };
}

/** The file-name starts a run gives a case's saved files (`createCaseFileNames`). */
function casePrefixes(record: Record<string, unknown>): string[] {
  const id = safeFileStem(String(record.eval_id));
  const prefixes = [id];
  if (typeof record.dataset === 'string') prefixes.push(`${safeFileStem(record.dataset)}__${id}`);
  return prefixes;
}

async function matchingFiles(folder: string, prefixes: string[]): Promise<string[]> {
  const names = await readdir(folder).catch(() => [] as string[]);
  return names
    .filter((name) =>
      prefixes.some((prefix) => {
        if (!name.startsWith(prefix)) return false;
        const next = name.charAt(prefix.length);
        return next === '.' || next === '_' || next === '-';
      }),
    )
    .sort();
}

/** The saved changes in `jsonPath`, when they are this case's (same id and target). */
async function readChanges(
  jsonPath: string,
  record: Record<string, unknown>,
): Promise<CaseResponse['workspace']> {
  try {
    const file = JSON.parse(await readFile(jsonPath, 'utf8')) as Record<string, unknown>;
    if (file.eval_id !== record.eval_id || file.target !== record.target) return null;
    const diff =
      typeof file.diff_file === 'string'
        ? await readFile(path.join(path.dirname(jsonPath), path.basename(file.diff_file)), 'utf8')
        : '';
    const files = Array.isArray(file.files) ? file.files : [];
    return {
      files: files.map((change: Record<string, unknown>) => ({
        path: String(change.path),
        status: String(change.status),
        insertions: Number(change.insertions) || 0,
        deletions: Number(change.deletions) || 0,
      })),
      diff,
    };
  } catch {
    return null;
  }
}
