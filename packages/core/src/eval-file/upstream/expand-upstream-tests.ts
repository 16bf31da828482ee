import { statSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Issue } from '../../errors/input-issue.js';
import { isRecord } from '../../util/records.js';
import { loadYamlPackage } from '../../yaml/yaml-package.js';
import type { SourceLocator } from '../../yaml/yaml-source.js';

const FILE_PROTOCOL = 'file://';

/** An eval file's case list with the case files it names read in. */
export interface ExpandedTests {
  /** The data with `tests:` (or `eval_cases:`) as one list of case mappings. */
  data: Record<string, unknown>;
  /** For each case of the list: the path of what the eval file writes for it. */
  origins: PropertyKey[][];
  issues: Issue[];
}

/**
 * Reads the case files an AgentV 4.x eval file names, as upstream does:
 * `tests: PATH` (a YAML list, a JSONL file of one case a line, or a folder of
 * `<id>/case.yaml`, its `workspace/` folder the case's template) and
 * `file://PATH` entries of the `tests:` list (YAML or JSONL). Paths resolve
 * against the eval file's folder. Unchanged data when nothing is named.
 */
export async function expandUpstreamTests(
  data: Record<string, unknown>,
  file: string,
  source: SourceLocator,
  cwd: string,
): Promise<ExpandedTests> {
  const key = ['tests', 'eval_cases'].find((candidate) => data[candidate] !== undefined);
  const list = key === undefined ? undefined : data[key];
  const issues: Issue[] = [];
  const evalDir = path.dirname(path.resolve(cwd, file));
  const at = (written: PropertyKey[]) => ({ file, ...(source.locate(written) ?? {}) });
  if (key === undefined) return { data, origins: [], issues };
  if (typeof list === 'string') {
    const cases = await readCases(list, [key], true);
    if (cases.length === 0 && !issues.some((issue) => issue.severity === 'error')) {
      issues.push({
        severity: 'error',
        ...at([key]),
        message: `"${list}" holds no tests`,
        hint: 'add tests to it: one JSON object a line, a YAML list, or a folder of `<id>/case.yaml`',
      });
    }
    return { data: { ...data, [key]: cases }, origins: cases.map(() => [key]), issues };
  }
  if (!Array.isArray(list) || !list.some(isFileReference)) {
    const origins = Array.isArray(list) ? list.map((_, index) => [key, index]) : [];
    return { data, origins, issues };
  }
  const cases: unknown[] = [];
  const origins: PropertyKey[][] = [];
  for (let index = 0; index < list.length; index++) {
    const entry = list[index];
    if (!isFileReference(entry)) {
      cases.push(entry);
      origins.push([key, index]);
      continue;
    }
    const read = await readCases(entry.slice(FILE_PROTOCOL.length), [key, index], false);
    for (const item of read) {
      cases.push(item);
      origins.push([key, index]);
    }
  }
  return { data: { ...data, [key]: cases }, origins, issues };

  async function readCases(
    written: string,
    where: PropertyKey[],
    folderAllowed: boolean,
  ): Promise<unknown[]> {
    if (/[*?{]/.test(written)) {
      issues.push({
        severity: 'error',
        ...at(where),
        message: `case files by pattern ("${written}") are not supported`,
        hint: 'name each file: `- file://cases/a.yaml`',
      });
      return [];
    }
    const absolute = path.resolve(evalDir, written);
    const kind = await stat(absolute).then(
      (stats) => (stats.isDirectory() ? 'folder' : 'file'),
      () => undefined,
    );
    if (kind === undefined) {
      issues.push({
        severity: 'error',
        ...at(where),
        message: `case file "${written}" not found (resolved to ${absolute})`,
        hint: "give a path relative to the eval file's folder",
      });
      return [];
    }
    if (kind === 'folder') {
      if (folderAllowed) return readCaseFolder(absolute, written, where);
      issues.push({
        severity: 'error',
        ...at(where),
        message: `"${written}" is a folder`,
        hint: 'name a .yaml or .jsonl file, or write the folder as `tests: FOLDER`',
      });
      return [];
    }
    const extension = path.extname(absolute).toLowerCase();
    const text = await readText(absolute, written, where);
    if (text === undefined) return [];
    if (extension === '.jsonl') return parseJsonl(text, written);
    if (extension === '.yaml' || extension === '.yml') {
      const value = await parseYaml(text, written, where);
      if (value === undefined) return [];
      if (Array.isArray(value)) return value;
      issues.push({
        severity: 'error',
        ...at(where),
        message: `case file "${written}" must hold a YAML list of cases`,
        hint: 'write each case as `- id: ...`',
      });
      return [];
    }
    issues.push({
      severity: 'error',
      ...at(where),
      message: `case file "${written}" is neither YAML nor JSONL`,
      hint: 'use a .yaml, .yml or .jsonl file',
    });
    return [];
  }

  async function readCaseFolder(
    folder: string,
    written: string,
    where: PropertyKey[],
  ): Promise<unknown[]> {
    const entries = (await readdir(folder, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    const cases: unknown[] = [];
    for (const name of entries) {
      const caseDir = path.join(folder, name);
      const caseFile = ['case.yaml', 'case.yml']
        .map((candidate) => path.join(caseDir, candidate))
        .find((candidate) => isFileSync(candidate));
      if (caseFile === undefined) {
        issues.push({
          severity: 'warning',
          ...at(where),
          message: `folder "${path.join(written, name)}" has no case.yaml and is skipped`,
          hint: 'put the case in case.yaml, or move the folder out',
        });
        continue;
      }
      const shown = path.join(written, name, path.basename(caseFile));
      const text = await readText(caseFile, shown, where);
      if (text === undefined) continue;
      const value = await parseYaml(text, shown, where);
      if (value === undefined) continue;
      if (!isRecord(value)) {
        issues.push({
          severity: 'error',
          ...at(where),
          message: `case file "${shown}" must hold one case (a mapping)`,
          hint: 'write the case as `id: ...`, `input: ...`',
        });
        continue;
      }
      const item: Record<string, unknown> = { ...value };
      if (item.id === undefined || item.id === null) item.id = name;
      if (item.workspace === undefined && isFolderSync(path.join(caseDir, 'workspace'))) {
        item.workspace = { template: path.join(caseDir, 'workspace') };
      }
      cases.push(item);
    }
    return cases;
  }

  /** The file's text, or undefined with an error when it cannot be read (permissions). */
  async function readText(
    absolute: string,
    shown: string,
    where: PropertyKey[],
  ): Promise<string | undefined> {
    try {
      return await readFile(absolute, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      issues.push({
        severity: 'error',
        ...at(where),
        message: `case file "${shown}" cannot be read (${code})`,
        hint: 'check that the file is readable by the user running agentv',
      });
      return undefined;
    }
  }

  async function parseYaml(text: string, shown: string, where: PropertyKey[]): Promise<unknown> {
    const { parse } = await loadYamlPackage();
    try {
      return parse(text);
    } catch (error) {
      issues.push({
        severity: 'error',
        ...at(where),
        message: `case file "${shown}" is not valid YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
        hint: 'fix the YAML syntax there',
      });
      return undefined;
    }
  }

  /** The cases of a JSONL case file; a line that is not one is an error at that line of it. */
  function parseJsonl(text: string, written: string): unknown[] {
    // Shown as the eval file is, from the same place.
    const shown = path.normalize(path.join(path.dirname(file), written));
    const cases: unknown[] = [];
    text.split('\n').forEach((line, index) => {
      if (line.trim() === '') return;
      let problem: string;
      try {
        const value: unknown = JSON.parse(line);
        if (isRecord(value)) {
          cases.push(value);
          return;
        }
        problem =
          'a case is a JSON object, not ' + (Array.isArray(value) ? 'a list' : typeof value);
      } catch (error) {
        problem = `invalid JSON: ${error instanceof Error ? error.message : String(error)}`;
      }
      issues.push({
        severity: 'error',
        file: shown,
        line: index + 1,
        column: 1,
        message: problem,
        hint: 'write one case a line, e.g. {"id": "a", "input": "...", "criteria": "..."}',
      });
    });
    return cases;
  }
}

function isFileReference(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(FILE_PROTOCOL);
}

function isFileSync(candidate: string): boolean {
  try {
    return statSync(candidate).isFile();
  } catch {
    return false;
  }
}

function isFolderSync(candidate: string): boolean {
  try {
    return statSync(candidate).isDirectory();
  } catch {
    return false;
  }
}
