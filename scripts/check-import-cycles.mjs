#!/usr/bin/env node
// Fails when the relative imports of a package's `src/**/*.ts` form a cycle, between files or
// between the folders of one package's `src` (a folder is the first path segment under `src/`;
// a file directly in `src/` is a node of its own; test files and `test-support/` are left out of
// the folder graph, as they sit beside the code they test). Counts `import … from`,
// `import type … from`, `export … from`, side-effect `import '…'` and `import('…')`; prints each
// file cycle as its file chain and each folder cycle as its folder chain with the imports that
// make each arrow; exits 1 when there is one. Plain Node, no dependencies:
// `node scripts/check-import-cycles.mjs [repository-root]`.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(
  process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'),
);
const workspaces = ['packages', 'apps'];

/** Every `.ts` file under `dir`, skipping `node_modules` and `dist`. */
function tsFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') files.push(...tsFiles(full));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      files.push(full);
    }
  }
  return files;
}

/** Source without comments, so commented-out imports do not count. Strings are kept. */
function stripComments(source) {
  return source.replace(/\/\*[\s\S]*?\*\/|(^|[^:'"`\\])\/\/[^\n]*/g, (match, before) =>
    match.startsWith('/*') ? '' : (before ?? ''),
  );
}

const SPECIFIER =
  /(?:^|[;\n}])\s*(?:import|export)\s+(?:type\s+)?(?:[\w*${}\s,]+?\s+from\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function relativeSpecifiers(source) {
  const specifiers = [];
  for (const match of stripComments(source).matchAll(SPECIFIER)) {
    const specifier = match[1] ?? match[2];
    if (specifier?.startsWith('.')) specifiers.push(specifier);
  }
  return specifiers;
}

/** The file a relative specifier names: `./a.js` is `./a.ts`; a folder is its `index.ts`. */
function resolveSpecifier(from, specifier) {
  const target = path.resolve(path.dirname(from), specifier);
  const candidates = [
    target.replace(/\.(m|c)?js$/, '.$1ts').replace(/\.ts$/, '.ts'),
    `${target}.ts`,
    path.join(target, 'index.ts'),
    target,
  ];
  return candidates.find(
    (file) => file.endsWith('.ts') && existsSync(file) && statSync(file).isFile(),
  );
}

/**
 * The cycles of a directed graph (`Map` of node to its successors), each as its node chain
 * closed by its first node. Depth-first: a back edge to a node on the current path closes a
 * cycle, so every graph with a cycle yields at least one; a cycle found from several starting
 * nodes is reported once.
 */
function findCycles(graph) {
  const cycles = [];
  const seenCycles = new Set();
  const state = new Map(); // 1 = on the current path, 2 = done
  const stack = [];
  function visit(node) {
    state.set(node, 1);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 1) {
        const cycle = stack.slice(stack.indexOf(next));
        const key = [...cycle].sort().join('\n');
        if (!seenCycles.has(key)) {
          seenCycles.add(key);
          cycles.push([...cycle, next]);
        }
      } else if (state.get(next) === undefined) {
        visit(next);
      }
    }
    stack.pop();
    state.set(node, 2);
  }
  for (const node of [...graph.keys()].sort()) {
    if (state.get(node) === undefined) visit(node);
  }
  return cycles;
}

/**
 * For each arrow that lies on a cycle, the shortest cycle through it (found breadth-first),
 * each cycle once, shortest first: the arrows a reader has to turn around, without the many
 * longer detours a depth-first walk would also list.
 */
function shortestFolderCycles(graph) {
  const cycles = new Map();
  for (const [from, successors] of graph) {
    for (const to of successors) {
      const back = shortestPath(graph, to, from);
      if (back === undefined) continue;
      const cycle = [from, ...back];
      // The same cycle entered at another folder is one cycle: key it from its smallest folder.
      const nodes = cycle.slice(0, -1);
      const start = nodes.indexOf([...nodes].sort()[0]);
      const key = [...nodes.slice(start), ...nodes.slice(0, start)].join('\n');
      if (!cycles.has(key)) cycles.set(key, cycle);
    }
  }
  return [...cycles.values()].sort(
    (a, b) => a.length - b.length || a.join().localeCompare(b.join()),
  );
}

/** The shortest node chain from `start` to `goal` (both included), else undefined. */
function shortestPath(graph, start, goal) {
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    if (node === goal) {
      const chain = [];
      for (let at = goal; at !== undefined; at = previous.get(at)) chain.unshift(at);
      return chain;
    }
    for (const next of graph.get(node) ?? []) {
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return undefined;
}

/** Whether a file belongs to the tests rather than the package's code. */
function isTestFile(relativeToSrc) {
  return (
    relativeToSrc.endsWith('.test.ts') || relativeToSrc.split(path.sep).includes('test-support')
  );
}

const fileGraph = new Map();
/** Per package `src`: folder → folder → the file imports that make that arrow. */
const folderGraphs = new Map();
for (const workspace of workspaces) {
  const base = path.join(root, workspace);
  if (!existsSync(base)) continue;
  for (const pkg of readdirSync(base)) {
    const src = path.join(base, pkg, 'src');
    if (!existsSync(src)) continue;
    const folders = new Map();
    folderGraphs.set(src, folders);
    for (const file of tsFiles(src)) {
      const edges = relativeSpecifiers(readFileSync(file, 'utf8'))
        .map((specifier) => resolveSpecifier(file, specifier))
        .filter((resolved) => resolved !== undefined);
      fileGraph.set(file, [...new Set(edges)]);
      const from = path.relative(src, file);
      if (isTestFile(from)) continue;
      const fromFolder = from.split(path.sep)[0];
      if (!folders.has(fromFolder)) folders.set(fromFolder, new Map());
      for (const imported of new Set(edges)) {
        const to = path.relative(src, imported);
        if (to.startsWith('..') || isTestFile(to)) continue;
        const toFolder = to.split(path.sep)[0];
        if (toFolder === fromFolder) continue;
        const arrows = folders.get(fromFolder);
        if (!arrows.has(toFolder)) arrows.set(toFolder, []);
        arrows.get(toFolder).push(`${from} -> ${to}`);
      }
    }
  }
}

let failed = false;
const fileCycles = findCycles(fileGraph);
if (fileCycles.length === 0) {
  console.log(`check-import-cycles: no import cycles among ${fileGraph.size} files`);
} else {
  failed = true;
  console.error(`check-import-cycles: ${fileCycles.length} import cycle(s) between files:`);
  for (const cycle of fileCycles) {
    console.error(`  ${cycle.map((file) => path.relative(root, file)).join('\n    -> ')}`);
  }
  console.error('Move the shared part (often a type) into its own file that both sides import.');
}

let folderCycleCount = 0;
for (const [src, folders] of folderGraphs) {
  const graph = new Map([...folders].map(([folder, arrows]) => [folder, [...arrows.keys()]]));
  const cycles = shortestFolderCycles(graph);
  if (cycles.length === 0) continue;
  failed = true;
  folderCycleCount += cycles.length;
  console.error(
    `check-import-cycles: ${cycles.length} import cycle(s) between the folders of ${path.relative(root, src)}:`,
  );
  for (const cycle of cycles) {
    console.error(`  ${cycle.join(' -> ')}`);
    for (let index = 0; index + 1 < cycle.length; index++) {
      const [from, to] = [cycle[index], cycle[index + 1]];
      console.error(`    ${from} -> ${to}:`);
      for (const link of folders.get(from).get(to)) console.error(`      ${link}`);
    }
  }
}
if (folderCycleCount === 0) {
  console.log(
    `check-import-cycles: no import cycles between the folders of ${folderGraphs.size} package${folderGraphs.size === 1 ? '' : 's'}`,
  );
} else {
  console.error(
    "Folders are layers: move what a lower folder takes from a higher one (often a type) down into it or below it, so every arrow points down (CONTRIBUTING.md, core's folders).",
  );
}
if (failed) process.exit(1);
