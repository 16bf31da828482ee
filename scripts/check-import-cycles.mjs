#!/usr/bin/env node
// Fails when the relative imports of any package's `src/**/*.ts` form a cycle.
// Counts `import … from`, `import type … from`, `export … from`, side-effect
// `import '…'` and `import('…')`; prints each cycle as its file chain; exits 1
// when there is one. Plain Node, no dependencies: `node scripts/check-import-cycles.mjs`.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
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

const graph = new Map();
for (const workspace of workspaces) {
  const base = path.join(root, workspace);
  if (!existsSync(base)) continue;
  for (const pkg of readdirSync(base)) {
    const src = path.join(base, pkg, 'src');
    if (!existsSync(src)) continue;
    for (const file of tsFiles(src)) {
      const edges = relativeSpecifiers(readFileSync(file, 'utf8'))
        .map((specifier) => resolveSpecifier(file, specifier))
        .filter((resolved) => resolved !== undefined);
      graph.set(file, [...new Set(edges)]);
    }
  }
}

// Depth-first search; a back edge to a file on the current path closes a cycle.
const cycles = [];
const seenCycles = new Set();
const state = new Map(); // 1 = on the current path, 2 = done
const stack = [];
function visit(file) {
  state.set(file, 1);
  stack.push(file);
  for (const next of graph.get(file) ?? []) {
    if (!graph.has(next)) continue;
    if (state.get(next) === 1) {
      const cycle = stack.slice(stack.indexOf(next));
      // The same cycle found from another starting file is reported once.
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
  state.set(file, 2);
}
for (const file of [...graph.keys()].sort()) {
  if (state.get(file) === undefined) visit(file);
}

if (cycles.length === 0) {
  console.log(`check-import-cycles: no import cycles among ${graph.size} files`);
} else {
  console.error(`check-import-cycles: ${cycles.length} import cycle(s):`);
  for (const cycle of cycles) {
    console.error(`  ${cycle.map((file) => path.relative(root, file)).join('\n    -> ')}`);
  }
  console.error('Move the shared part (often a type) into its own file that both sides import.');
  process.exit(1);
}
