import { describe, expect, it } from 'vitest';
import { parseWithYaml, parseYamlMapping } from './parse-yaml-mapping.js';
import { splitTopLevelSequence } from './split-top-level-sequence.js';

// The `yaml` package's path (a valid plain file otherwise takes the fast parser, see fast-yaml.test.ts).
const whole = (text: string) => parseWithYaml(text, 'f.yaml', 'eval file', {});
const split = (text: string) =>
  parseWithYaml(text, 'f.yaml', 'eval file', { splitKey: 'evalcases', splitAboveBytes: 0 });

const layouts = {
  indented: [
    '# leading comment',
    'description: d',
    'evalcases:',
    '  # before the first case',
    '  - id: a',
    '    input_messages:',
    '      - role: user',
    '        content: |',
    '          - not an item',
    '',
    '          still text',
    '  -',
    '    id: b',
    '    input_messages: [{ role: user, content: "x" }]',
    '  - { id: c, input_messages: [] }',
    '# trailing comment',
    'dataset: after',
    '',
  ].join('\n'),
  flush: ['evalcases:', '- id: a', '  rubrics:', '  - one', '- id: b', 'target: t', ''].join('\n'),
  crlf: 'evalcases:\r\n  - id: a\r\n    outcome: x\r\n  - id: b\r\n',
};

describe('parseYamlMapping split by evalcases', () => {
  for (const [name, text] of Object.entries(layouts)) {
    it(`gives the same data and positions as a whole-file parse (${name})`, async () => {
      const expected = (await whole(text)).value!;
      const actual = (await split(text)).value!;
      expect(splitTopLevelSequence(text, 'evalcases')).toBeDefined();
      expect(actual.data).toEqual(expected.data);
      const paths: PropertyKey[][] = [
        [],
        ['evalcases'],
        ['evalcases', 0],
        ['evalcases', 0, 'id'],
        ['evalcases', 0, 'input_messages', 0, 'content'],
        ['evalcases', 1],
        ['evalcases', 1, 'id'],
        ['evalcases', 1, 'missing'],
        ['evalcases', 2, 'input_messages'],
        ['dataset'],
      ];
      for (const path of paths) {
        expect(actual.source.locate(path), JSON.stringify(path)).toEqual(
          expected.source.locate(path),
        );
      }
      expect(actual.source.locateKey(['evalcases', 0], 'id')).toEqual(
        expected.source.locateKey(['evalcases', 0], 'id'),
      );
    });
  }

  it('falls back to the whole file for anchors, flow lists and syntax errors', async () => {
    const anchored = 'evalcases:\n  - &base { id: a }\n  - *base\n';
    expect(splitTopLevelSequence(anchored, 'evalcases')).toBeUndefined();
    expect((await split(anchored)).value!.data).toEqual({ evalcases: [{ id: 'a' }, { id: 'a' }] });

    expect(splitTopLevelSequence('evalcases: [{ id: a }]\n', 'evalcases')).toBeUndefined();

    const broken = 'evalcases:\n  - id: a\n  - id: [b\n  - id: c\n';
    const result = await split(broken);
    expect(result.value).toBeUndefined();
    expect(result.issues).toEqual((await whole(broken)).issues);
  });
});

describe('parseYamlMapping and process.env', () => {
  it('never replaces process.env while parsing, whole, split or fast', async () => {
    const env = process.env;
    let replaced = 0;
    Object.defineProperty(process, 'env', {
      configurable: true,
      enumerable: true,
      get: () => env,
      set: () => {
        replaced++;
      },
    });
    try {
      const text =
        'description: d\nevalcases:\n  - id: a\n    input_messages: [{ role: user, content: hi }]\n';
      expect((await whole(text)).value?.data.description).toBe('d');
      expect((await split(text)).value?.data.description).toBe('d');
      expect((await parseYamlMapping(text, 'f.yaml', 'eval file')).value?.data.description).toBe(
        'd',
      );
    } finally {
      Object.defineProperty(process, 'env', {
        configurable: true,
        enumerable: true,
        writable: true,
        value: env,
      });
    }
    expect(replaced).toBe(0);
  });
});

describe('an indentation mistake', () => {
  const hintOf = async (lines: string[]) => {
    const { issues } = await whole(`${lines.join('\n')}\n`);
    expect(issues).toHaveLength(1);
    return issues[0]!;
  };

  it('quotes the line and the one above it that it should line up with', async () => {
    expect(
      await hintOf([
        'evalcases:',
        '  - id: a',
        '    input_messages:',
        '      - role: user',
        '        content: hi',
        '   evaluators: []',
      ]),
    ).toMatchObject({
      line: 6,
      hint: 'line 6 ("   evaluators: []") starts at column 4, line 3 ("    input_messages:") at column 5; check the indentation, quotes and brackets around this line',
    });
  });

  it("counts a list item's key from after its dash", async () => {
    expect(
      await hintOf([
        'evalcases:',
        '  - id: a',
        '    input_messages:',
        '      - role: user',
        '      content: hi',
      ]),
    ).toMatchObject({
      line: 5,
      hint: 'line 5 ("      content: hi") starts at column 7, line 4 ("      - role: user") at column 9; check the indentation, quotes and brackets around this line',
    });
  });

  it('says to indent with spaces where a tab indents', async () => {
    expect(await hintOf(['evalcases:', '  - id: a', '\tinput_messages: []'])).toMatchObject({
      line: 3,
      hint: 'indent with spaces; YAML does not allow tabs there',
    });
  });
});
