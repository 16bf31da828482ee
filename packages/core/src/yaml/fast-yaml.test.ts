import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { isRecord } from '../util/records.js';
import { loadFast } from './fast-yaml.js';
import { FastYamlSource } from './fast-yaml-source.js';
import { parseWithYaml, parseYamlMapping } from './parse-yaml-mapping.js';
import { loadYamlPackage } from './yaml-package.js';
import { type KeyMatcher, YamlSource } from './yaml-source.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/**
 * Every YAML file checked into the repository (examples, fixtures, test projects), but pnpm's
 * lockfile: thousands of generated keys that no AgentV user writes, located one by one, made
 * this test take a minute on a busy machine. Only files git tracks: what other suites and
 * tools write into the tree while this one runs (results, temp projects) is not the subject.
 * Outside a git checkout (an unpacked archive), every file found but in generated folders.
 */
function repositoryYamlFiles(): string[] {
  const tracked = spawnSync('git', ['ls-files', '-z', '--', '*.yaml', '*.yml'], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  if (tracked.status === 0 && existsSync(path.join(repoRoot, '.git'))) {
    return tracked.stdout
      .split('\0')
      .filter((name) => name !== '' && name !== 'pnpm-lock.yaml')
      .map((name) => path.join(repoRoot, name))
      .filter((file) => existsSync(file));
  }
  const files: string[] = [];
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      if (['node_modules', '.git', 'dist', '.turbo', 'pnpm-lock.yaml'].includes(entry.name)) {
        continue;
      }
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.ya?ml$/.test(entry.name)) files.push(full);
    }
  };
  walk(repoRoot);
  return files;
}

/** YAML texts that the test suites of every package write and load (collected from a run). */
function textsWrittenByTests(): string[] {
  const corpus = readFileSync(new URL('./__fixtures__/yaml-corpus.json', import.meta.url), 'utf8');
  return JSON.parse(corpus) as string[];
}

const edgeCases: Record<string, string> = {
  anchors: 'base: &b { a: 1 }\nuse: *b\nlist: [*b, *b]\n',
  merge: 'base: &b { a: 1 }\nmerged:\n  <<: *b\n  c: 2\n',
  'merge without anchors': '<<: { a: 1 }\nb: 2\n',
  'duplicate keys': 'a: 1\na: 2\n',
  'nested duplicate keys': 'x:\n  a: 1\n  a: 2\n',
  'multiple documents': 'a: 1\n---\nb: 2\n',
  'document markers': '---\na: 1\n...\n',
  'tab indentation': 'a:\n\tb: 1\n',
  'tab after value': 'a: 1\t\nb:\t2\n',
  'tabs in text': 'a: "x\ty"\nb: x\ty\n',
  numbers:
    'a: 1_000\nb: 0o17\nc: 0x1F\nd: 017\ne: +12\nf: -0\ng: 1.5e3\nh: 1e3\ni: .5\nj: 5.\nk: 0b101\nl: 1:20\nm: 12345678901234567890\nn: -.inf\no: +.inf\np: .NaN\nq: .Inf\nr: 0x1f\ns: 0o8\nt: 1.0\nu: -1.50\n',
  nulls: 'a: ~\nb: null\nc: Null\nd: NULL\ne:\nf: nul\n~: x\n',
  booleans: 'a: yes\nb: no\nc: on\nd: off\ne: y\nf: True\ng: FALSE\nh: tRUE\n',
  timestamps: 'a: 2001-12-14t21:59:43.10-05:00\nb: 2002-12-14\nc: 2001-12-14 21:59:43.10 -5\n',
  binary: 'a: !!binary |\n  R0lGODlhDAAMAIQAAP//9/X17unp5WZmZgAAAOfn515eXvPz7Y6OjuDg4J+fn5\n',
  tags: 'a: !!str 1\nb: !!int "2"\nc: !custom x\n',
  'long strings': `a: ${'x'.repeat(5000)}\nb: "${'y'.repeat(3000)}"\n${'k'.repeat(1100)}: 1\n`,
  'long key': `${'k'.repeat(1100)}: 1\n`,
  unicode: 'naïve: "日本語 🎉"\nemoji: 🎉\n"ключ": значение\nescaped: "\\u00e9\\U0001F600"\n',
  empty: '',
  'comments only': '# a comment\n# another\n',
  'only a document marker': '---\n',
  bom: '\uFEFFa: 1\nb:\n  - x\n',
  crlf: 'a: 1\r\nb:\r\n  - x\r\n  - y: |\r\n      line\r\n      two\r\n',
  'crlf folded': 'a: >\r\n  one\r\n  two\r\n\r\n  three\r\n',
  'block scalars':
    'a: |\n  line\n   indented\nb: >-\n  folded\n  text\nc: |+\n  keep\n\nd: |2\n    explicit\n',
  'quoted scalars': `a: 'it''s'\nb: "esc \\n \\" \\\\"\nc: "multi\n  line"\nd: 'multi\n  line'\n`,
  'plain multi-line': 'a: one\n  two\n  three\nb: x # comment\n',
  'empty values': 'a:\nb:\n  c:\n  d: 1\ne: []\nf: {}\ng:\n  -\n  - x\n',
  'explicit keys': '? a\n: 1\n? [x]\n: 2\n',
  'complex flow keys': '{ a: 1 }: x\n',
  'flow over lines': 'a: [1,\n  2]\nb: { c: 1,\n  d: 2 }\n',
  'flow badly indented': 'a:\n  b: [1,\n2]\n',
  'flow pairs': 'a: [x: 1, y]\nb: { c, d: 2 }\n',
  'flow trailing comma': 'a: [1, 2, ]\nb: { c: 1, }\n',
  'nested flow': 'a: [{ b: [1, { c: d }] }, [e]]\n',
  'top-level list': '- a\n- b\n',
  'top-level scalar': 'just text\n',
  directive: '%YAML 1.2\n---\na: 1\n',
  'yaml 1.1 directive': '%YAML 1.1\n---\na: yes\n',
  'key with colon': 'a:b: c\n"d:e": f\nurl: http://x.y/z\n',
  'comment without space': 'a: b#c\nd: e #f\n',
  'missing space after colon': 'a:1\n',
  'bad indentation': 'a:\n  b: 1\n c: 2\n',
  'unclosed quote': 'a: "open\n',
  'unclosed flow': 'a: [1, 2\n',
  'alias to undefined': 'a: *nope\n',
  'proto key': '__proto__: { a: 1 }\nb: 2\n',
  'numeric keys': '1: a\n2.5: b\ntrue: c\nnull: d\n0x10: e\n',
  'sequence same indent': 'a:\n- 1\n- 2\nb: 3\n',
  'sequence of sequences': 'a:\n  - - 1\n    - 2\n  - - 3\n',
  'compact mappings': 'a:\n  - b: 1\n    c: 2\n  -   d: 3\n',
  'value on next line':
    'a:\n  text on its own line\nb:\n  [1, 2]\nc:\n  { d: 1 }\nd:\n  "quoted"\n',
  'comment between key and value': 'a:\n  # note\n  b: 1\nc: # note\n  - x\n',
  'special strings': "a: '@x'\nb: '`x`'\nc: -x\nd: ?x\ne: ':x'\nf: x:y\ng: '- x'\n",
  'reserved indicators': 'a: @x\n',
  'exclamation marks in text': 'a: wow!\nb: "!x"\nc: x !y\nd: [x!, y]\n',
  'markdown in text': 'a: |\n  - **bold** item\n  - *em*\nb: say *hi*\nc: "*x*"\n',
  'tag on a key': '!!str a: 1\n',
  'tag after a list dash': 'a:\n  - !!str 1\n',
  'tag in flow': 'a: [1, !!str 2]\n',
  'anchor on a key': '&k a: 1\nb: *k\n',
  'windows path': 'a: C:\\dir\\file\nb: "C:\\\\dir"\n',
  'question mark value': 'a: ?\nb: -\n',
  'trailing spaces': 'a: 1   \nb:   \n  - x   \n',
  'no final newline': 'a: 1\nb: [2]',
  'null bytes escaped': 'a: "\\0"\n',
  'deep nesting': `a: ${'['.repeat(60)}1${']'.repeat(60)}\n`,
  'eval file': [
    'description: d',
    'execution:',
    '  evaluators:',
    '    - { name: answered, type: contains, value: "answer" }',
    'evalcases:',
    '  - id: case-0',
    '    input_messages: [{ role: user, content: "question 0" }]',
    '  - id: case-1',
    '    outcome: x',
    '    input_messages:',
    '      - role: user',
    '        content:',
    '          - type: file',
    '            value: ./a.md',
    '',
  ].join('\n'),
};

/** Snake_case keys also match their camelCase spelling, as the targets loader does. */
const camelToo: KeyMatcher = (keyInFile, segment) =>
  keyInFile === segment ||
  keyInFile.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`) === segment;

/** Every path the loaders may ask about: each node, each key, and paths that do not exist. */
function queries(data: unknown): { paths: PropertyKey[][]; keys: [PropertyKey[], string][] } {
  const paths: PropertyKey[][] = [[], ['missing'], ['missing', 0]];
  const keys: [PropertyKey[], string][] = [[[], 'missing']];
  const walk = (value: unknown, at: PropertyKey[], depth: number) => {
    if (depth > 12) return;
    if (Array.isArray(value)) {
      paths.push([...at, value.length], [...at, 'x']);
      value.forEach((item, index) => {
        // Long lists (thousands of cases): their first and last items are enough.
        if (index >= 20 && index < value.length - 5) return;
        paths.push([...at, index]);
        walk(item, [...at, index], depth + 1);
      });
    } else if (isRecord(value)) {
      keys.push([at, 'missing'], [at, 'camelCase']);
      paths.push([...at, 'missing'], [...at, 0]);
      for (const [key, item] of Object.entries(value)) {
        paths.push([...at, key], [...at, key, 'deeper']);
        keys.push([at, key]);
        const camel = key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
        if (camel !== key) keys.push([at, camel]);
        walk(item, [...at, key], depth + 1);
      }
    } else {
      keys.push([at, 'missing']);
    }
  };
  walk(data, [], 0);
  return { paths, keys };
}

function compare(text: string): { fast: boolean; slowLocates: number } {
  const fast = loadFast(text);
  const document = parseDocument(text);
  if (fast === undefined) return { fast: false, slowLocates: 0 };
  // The fast parser only accepts what `yaml` reads without an error or a warning…
  expect(document.errors.map((error) => error.code)).toEqual([]);
  expect(document.warnings.map((warning) => warning.code)).toEqual([]);
  // …and gives the same value.
  expect(fast.data).toStrictEqual(document.toJS({ maxAliasCount: 1000 }));
  let slowLocates = 0;
  for (const matchKey of [undefined, camelToo]) {
    const yamlSource = new YamlSource(text, matchKey);
    const fastSource = new FastYamlSource(
      text,
      fast,
      () => {
        slowLocates++;
        return yamlSource;
      },
      matchKey,
    );
    const { paths, keys } = queries(fast.data);
    for (const query of paths) {
      expect({ query, at: fastSource.locate(query) }).toEqual({
        query,
        at: yamlSource.locate(query),
      });
    }
    for (const [mapPath, key] of keys) {
      const query = { mapPath, key };
      expect({ query, at: fastSource.locateKey(mapPath, key) }).toEqual({
        query,
        at: yamlSource.locateKey(mapPath, key),
      });
    }
  }
  // A file whose nodes the fast parse knows exactly never asks `yaml` (which is then not loaded).
  if (fast.frames.allExact()) expect(slowLocates).toBe(0);
  return { fast: true, slowLocates };
}

/** What the loaders see: the same data and issues through either parser. */
async function compareLoads(text: string) {
  for (const options of [{}, { splitKey: 'evalcases', splitAboveBytes: 0 }]) {
    const actual = await parseYamlMapping(text, 'f.yaml', 'eval file', options);
    const expected = await parseWithYaml(text, 'f.yaml', 'eval file', options);
    expect(actual.issues).toEqual(expected.issues);
    expect(actual.value?.data).toStrictEqual(expected.value?.data);
  }
}

describe('loadFast against the yaml package', () => {
  // `YamlSource` is made here directly, not through a loader that loads the package first.
  beforeAll(async () => {
    await loadYamlPackage();
  });

  for (const [name, text] of Object.entries(edgeCases)) {
    it(`agrees on ${name}`, async () => {
      compare(text);
      await compareLoads(text);
    });
  }

  it('agrees on every YAML file of the repository', async () => {
    const files = repositoryYamlFiles();
    expect(files.length).toBeGreaterThan(20);
    let fastFiles = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      if (compare(text).fast) fastFiles++;
      await compareLoads(text);
    }
    // Most files take the fast path: the comparison above is not vacuous.
    expect(fastFiles).toBeGreaterThan(files.length / 2);
    // Parses ~270 files several times each (~20 s alone): 60 s failed it on a busy 2-core machine.
  }, 240_000);

  it('agrees on every YAML text the test suites load', async () => {
    const texts = textsWrittenByTests();
    expect(texts.length).toBeGreaterThan(100);
    let fastTexts = 0;
    for (const text of texts) {
      if (compare(text).fast) fastTexts++;
      await compareLoads(text);
    }
    expect(fastTexts).toBeGreaterThan(texts.length / 2);
  }, 240_000);

  it('reads common files without building the yaml syntax tree', () => {
    for (const name of [
      'eval file',
      'numbers',
      'unicode',
      'bom',
      'crlf',
      'nested flow',
      'exclamation marks in text',
      'markdown in text',
    ]) {
      expect({ name, ...compare(edgeCases[name]!) }).toEqual({ name, fast: true, slowLocates: 0 });
    }
  });

  it('leaves to yaml what js-yaml reads differently or without its errors and warnings', () => {
    const slow = [
      'anchors',
      'merge',
      'duplicate keys',
      'multiple documents',
      'tab indentation',
      'tags',
      'binary',
      'long key',
      'empty',
      'comments only',
      'directive',
      'flow over lines',
      'top-level list',
      'alias to undefined',
      'tag on a key',
      'tag after a list dash',
      'tag in flow',
      'anchor on a key',
    ];
    for (const name of slow)
      expect({ name, fast: loadFast(edgeCases[name]!) }).toEqual({ name, fast: undefined });
  });
});
