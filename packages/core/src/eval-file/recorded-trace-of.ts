import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Issue } from '../errors/input-issue.js';
import type { RecordedTraceRef, RecordedTraceSource } from '../provider/recorded-trace.js';
import { displayPath } from '../util/display-path.js';
import type { SourceLocator } from '../yaml/yaml-source.js';
import { checkFileRootOnce, describeRefusal, systemFolderRefusal } from './file-roots.js';
import type { FileLookup } from './resolve-input-file.js';

/**
 * A case's `trace: { source, path }` resolved: `path` relative to the eval file's folder (a
 * dataset's records too), the file existing and, as every file a case names, inside the
 * project's file roots (no `..` or symlink out of them, nothing under /proc, /sys, /dev).
 * Undefined, with an error issue, otherwise.
 */
export async function recordedTraceOf(
  value: { source: RecordedTraceSource; path: string },
  context: {
    file: string;
    source: SourceLocator;
    casePath: readonly PropertyKey[];
    caseId: string;
    lookup: FileLookup;
    issues: Issue[];
  },
): Promise<RecordedTraceRef | undefined> {
  const { lookup } = context;
  const at = {
    severity: 'error' as const,
    file: context.file,
    ...context.source.locate([...context.casePath, 'trace', 'path']),
    caseId: context.caseId,
  };
  const absolute = path.resolve(lookup.evalDir, value.path);
  const system = systemFolderRefusal(absolute);
  const info = system === undefined ? await stat(absolute).catch(() => undefined) : undefined;
  const refused =
    system ??
    (info?.isFile()
      ? await checkFileRootOnce(absolute, lookup.roots, lookup.rootChecks)
      : undefined);
  if (refused !== undefined) {
    context.issues.push({
      ...at,
      ...describeRefusal(`trace file ${value.path}`, value.path, refused, lookup.roots),
    });
    return undefined;
  }
  if (!info?.isFile()) {
    context.issues.push({
      ...at,
      message: `trace file ${value.path} (${value.source}) not found (looked for ${displayPath(lookup.cwd, absolute)})`,
      hint: 'the trace `path:` is relative to the eval file; copy the session file into the project (Codex: ~/.codex/sessions/…/rollout-*.jsonl, Claude Code: ~/.claude/projects/<folder>/<session>.jsonl)',
    });
    return undefined;
  }
  return { source: value.source, path: absolute, written: value.path };
}
