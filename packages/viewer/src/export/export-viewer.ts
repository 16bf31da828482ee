import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { clientAssets } from '../server/client-assets.js';
import { compareSides } from '../server/compare-sides.js';
import { readCase } from '../server/read-case.js';
import { ResultCatalog, type ResultSources } from '../server/result-catalog.js';
import type { RunsResponse } from '../shared/api-types.js';

export interface ExportOptions {
  sources: ResultSources;
  /** Folder run keys are relative to (as for `startViewer`). */
  base: string;
  /** The folder to write; replaced whole. */
  outDir: string;
}

export interface ExportSummary {
  runs: number;
  cases: number;
  files: number;
}

const CASES_PER_FILE = 500;

/** The API path the client asks for (the same encoding as the client's `api`). */
function apiPath(route: string, params: Record<string, string | number | null>): string {
  const query = Object.entries(params)
    .filter(([, value]) => value !== null && value !== '')
    .map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`)
    .join('&');
  return `/api/${route}${query ? `?${query}` : ''}`;
}

/**
 * Writes the viewer as static files over the runs of `sources`: the client, and each API answer
 * the pages ask for in a script beside it (`data/`), loaded on demand, so the folder opens from
 * the file system or any static host (a CI artifact). It holds every run, every case, the files
 * saved beside each result file (copied to `files/`), and the comparison of each run with the run
 * before it of the same eval files. Nothing in it loads anything from elsewhere.
 */
export async function exportViewer(options: ExportOptions): Promise<ExportSummary> {
  const catalog = new ResultCatalog(options.sources, options.base);
  await catalog.refresh();
  const assets = await clientAssets();
  const out = path.resolve(options.outDir);
  await rm(out, { recursive: true, force: true });
  await mkdir(path.join(out, 'data'), { recursive: true });
  await writeFile(path.join(out, 'index.html'), assets.html);
  await writeFile(path.join(out, 'app.js'), assets.js);
  await writeFile(path.join(out, 'app.css'), assets.css);

  const index: Record<string, string> = {};
  let dataFiles = 0;
  const writeData = async (entries: [string, unknown][]) => {
    const name = `data/${++dataFiles}.js`;
    const body = entries
      .map(
        ([apiKey, value]) => `__agentvData(${JSON.stringify(apiKey)},${JSON.stringify(value)});\n`,
      )
      .join('');
    await writeFile(path.join(out, name), body);
    for (const [apiKey] of entries) index[apiKey] = name;
  };

  const runs = catalog.all();
  const runsResponse: RunsResponse = {
    runs: runs.map((run) => run.summary()),
    sources: [...options.sources.folders, ...options.sources.files].map(
      (source) => path.relative(options.base, path.resolve(source)) || '.',
    ),
  };
  await writeData([['/api/runs', runsResponse]]);
  let cases = 0;
  let copied = 0;
  for (const [runNumber, run] of runs.entries()) {
    await writeData([[apiPath('run', { key: run.key }), JSON.parse(run.runJson())]]);
    await writeData([[apiPath('run-text', { key: run.key }), JSON.parse(run.textJson())]]);
    const copiedFiles = new Map<string, string>();
    const fileHref = (absolute: string) => {
      let target = copiedFiles.get(absolute);
      if (target === undefined) {
        target = `files/${runNumber + 1}/${copiedFiles.size + 1}${path.extname(absolute).replace(/[^.\w]/g, '')}.txt`;
        copiedFiles.set(absolute, target);
      }
      return target;
    };
    let batch: [string, unknown][] = [];
    for (let at = 0; at < run.caseCount; at++) {
      const line = run.lineAt(at)!.line;
      const found = await readCase(run, line, fileHref);
      if (found === undefined) continue;
      batch.push([apiPath('case', { key: run.key, line }), found]);
      cases++;
      if (batch.length === CASES_PER_FILE) {
        await writeData(batch);
        batch = [];
      }
    }
    if (batch.length > 0) await writeData(batch);
    for (const [source, target] of copiedFiles) {
      await mkdir(path.dirname(path.join(out, target)), { recursive: true });
      await copyFile(source, path.join(out, target));
      copied++;
    }
  }
  // Each run against the run before it of the same eval files: the comparisons CI readers want.
  for (const [position, run] of runs.entries()) {
    const files = JSON.stringify(run.summary().evalFiles);
    const before = runs
      .slice(0, position)
      .reverse()
      .find((other) => JSON.stringify(other.summary().evalFiles) === files);
    if (before === undefined) continue;
    try {
      const comparison = compareSides(
        { index: before, target: null },
        { index: run, target: null },
      );
      await writeData([[apiPath('compare', { base: before.key, new: run.key }), comparison]]);
    } catch {
      // Runs that cannot be compared (different targets) are simply not compared in the export.
    }
  }
  await writeFile(
    path.join(out, 'data', 'index.js'),
    `window.AGENTV_EXPORT=${JSON.stringify(index)};\n`,
  );
  return { runs: runs.length, cases, files: copied };
}
