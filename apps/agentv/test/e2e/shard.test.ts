import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createProject,
  ECHO_AGENT,
  ECHO_TARGETS,
  type Project,
  parseJsonl,
  runAgentv,
} from '../support/project.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

// 24 cases over two files: most pass, every fifth fails its check, one crashes (an error).
const echoCase = (id: string, expected: string, tags: string[] = []) => `
  - id: ${id}
    tags: [${tags.join(', ')}]
    input_messages: [{ role: user, content: ${JSON.stringify(`say ${id}`)} }]
    evaluators:
      - { name: echoed, type: contains, value: ${JSON.stringify(expected)} }
`;

function evalFile(prefix: string, count: number, fileTags: string[] = []): string {
  const cases = Array.from({ length: count }, (_, i) => {
    const id = `${prefix}-${i + 1}`;
    const expected = i % 5 === 4 ? 'never said' : id;
    return echoCase(id, expected, i % 2 === 0 ? ['even'] : ['odd']);
  }).join('');
  return `execution:\n  target: default\ntags: [${fileTags.join(', ')}]\nevalcases:\n${cases}`;
}

async function createShardProject(): Promise<Project> {
  return createProject({
    'agent.mjs': ECHO_AGENT,
    '.agentv/targets.yaml': ECHO_TARGETS,
    'evals/alpha.yaml': evalFile('alpha', 14, ['alpha']),
    'evals/beta.yaml': evalFile('beta', 9).replace(
      'evalcases:\n',
      `evalcases:\n${echoCase('beta-crash', 'x', ['odd'])}`.replace('say beta-crash', 'crash'),
    ),
  });
}

// biome-ignore lint/suspicious/noExplicitAny: tests read result lines of a known shape
type Line = Record<string, any>;

const byKey = (lines: Line[]) =>
  lines
    .map((line) => `${line.eval_file}|${line.eval_id}|${line.target}|${line.score}|${line.passed}`)
    .sort();

/**
 * The summary's lines without durations, which differ between runs, sorted: cases
 * with equal scores are listed in the order they finished.
 */
const summaryFigures = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => /pass|fail|error|total|cases|score/i.test(line))
    .filter((line) => !/ms|duration|\ds\b|Results:|JUnit|HTML/i.test(line))
    .sort()
    .join('\n');

describe('agentv eval --shard and agentv results merge', () => {
  it('4 shards merged equal one unsharded run: cases, scores, summary and exit code', async () => {
    project = await createShardProject();
    const dir = project.dir;
    const whole = await runAgentv(['eval', 'evals', '--out', 'whole.jsonl'], dir);
    expect(whole.stderr).not.toContain('unexpected');
    expect(whole.code).toBe(2); // beta-crash errors
    const wholeLines = parseJsonl(await readFile(project.file('whole.jsonl'), 'utf8'));
    expect(wholeLines).toHaveLength(24);

    const shardIds: string[][] = [];
    for (let shard = 1; shard <= 4; shard++) {
      const run = await runAgentv(
        ['eval', 'evals', '--shard', `${shard}/4`, '--out', `shard-${shard}.jsonl`],
        dir,
      );
      expect([0, 1, 2]).toContain(run.code);
      const lines = parseJsonl(await readFile(project.file(`shard-${shard}.jsonl`), 'utf8'));
      for (const line of lines) expect(line.run).toMatchObject({ cases: 24, shard: `${shard}/4` });
      shardIds.push(lines.map((line) => line.eval_id));
    }
    // Every case in exactly one shard, and no shard holds everything.
    const all = shardIds.flat();
    expect(new Set(all).size).toBe(24);
    expect(all).toHaveLength(24);
    expect(Math.max(...shardIds.map((ids) => ids.length))).toBeLessThan(24);

    const merged = await runAgentv(
      [
        'results',
        'merge',
        'shard-1.jsonl',
        'shard-2.jsonl',
        'shard-3.jsonl',
        'shard-4.jsonl',
        '--out',
        'merged.jsonl',
        '--junit',
        'merged.xml',
        '--html',
        'merged.html',
      ],
      dir,
    );
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(whole.code);
    const mergedLines = parseJsonl(await readFile(project.file('merged.jsonl'), 'utf8'));
    expect(byKey(mergedLines)).toEqual(byKey(wholeLines));
    expect(mergedLines.every((line) => line.run.shard === undefined)).toBe(true);
    expect(mergedLines[0]!.run.id).toBe(wholeLines[0]!.run.id);
    expect(summaryFigures(merged.stdout)).toEqual(summaryFigures(whole.stdout));
    expect(summaryFigures(merged.stdout)).not.toBe('');
    const junit = await readFile(project.file('merged.xml'), 'utf8');
    expect(junit).toContain('tests="24"');
    expect(junit).toContain('beta-crash');
    expect(await readFile(project.file('merged.html'), 'utf8')).toContain('alpha-14');
  });

  it('adding a case moves no other case to another shard', async () => {
    project = await createShardProject();
    const listShards = async () => {
      const owners = new Map<string, number>();
      for (let shard = 1; shard <= 3; shard++) {
        const run = await runAgentv(
          ['eval', 'evals', '--shard', `${shard}/3`, '--list'],
          project!.dir,
        );
        expect(run.code).toBe(0);
        for (const line of run.stdout.split('\n')) {
          const id = line.split(/\s+/)[1];
          if (line.startsWith('evals/') && id) owners.set(id, shard);
        }
      }
      return owners;
    };
    const before = await listShards();
    expect(before.size).toBe(24);
    const file = project.file('evals/alpha.yaml');
    await writeFile(file, (await readFile(file, 'utf8')) + echoCase('alpha-new', 'alpha-new'));
    const after = await listShards();
    expect(after.size).toBe(25);
    for (const [id, shard] of before) expect(after.get(id)).toBe(shard);
  });

  it('rejects a bad --shard with a hint', async () => {
    project = await createShardProject();
    for (const value of ['0/4', '5/4', 'x']) {
      const run = await runAgentv(['eval', 'evals', '--shard', value, '--list'], project.dir);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`--shard must be i/n with 1 <= i <= n, got "${value}"`);
      expect(run.stderr).toContain('hint: shards count from 1');
    }
  });

  it('merge rejects a shard given twice, a missing shard and shards of different runs', async () => {
    project = await createShardProject();
    const dir = project.dir;
    for (const shard of [1, 2]) {
      await runAgentv(['eval', 'evals', '--shard', `${shard}/2`, '--out', `s${shard}.jsonl`], dir);
    }
    await runAgentv(
      ['eval', 'evals', '--tag', 'even', '--shard', '2/2', '--out', 'even2.jsonl'],
      dir,
    );

    const twice = await runAgentv(
      ['results', 'merge', 's1.jsonl', 's2.jsonl', 's1.jsonl', '--out', 'm.jsonl'],
      dir,
    );
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(
      /agentv: case "[a-z]+-[\w-]+" \(eval file evals\/\w+\.yaml, target default\) is in s1\.jsonl:1 and again in s1\.jsonl:1/,
    );
    expect(twice.stderr).toContain('hint: each case must be in exactly one file');

    const missing = await runAgentv(['results', 'merge', 's1.jsonl', '--out', 'm.jsonl'], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/the files hold \d+ of the run's 24 cases/);
    expect(missing.stderr).toContain('missing shard(s) 2/2');

    const mixed = await runAgentv(
      ['results', 'merge', 's1.jsonl', 'even2.jsonl', '--out', 'm.jsonl'],
      dir,
    );
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('even2.jsonl and s1.jsonl come from different runs');
    expect(mixed.stderr).toContain('hint: merge only the shards of one run');

    const bad = await runAgentv(['results', 'merge', 'evals/alpha.yaml', '--out', 'm.jsonl'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'agentv: evals/alpha.yaml is a YAML file; this command reads JSONL result files',
    );
    await writeFile(path.join(dir, 'notes.jsonl'), 'not json\n');
    const notJson = await runAgentv(['results', 'merge', 'notes.jsonl', '--out', 'm.jsonl'], dir);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain(
      `agentv: notes.jsonl:1:1: invalid JSON: Unexpected token 'o', "not json" is not valid JSON\n`,
    );
    await writeFile(path.join(dir, 'notes.jsonl'), '  {"eval_id": "x" 1}\n');
    const column = await runAgentv(['results', 'merge', 'notes.jsonl', '--out', 'm.jsonl'], dir);
    expect(column.stderr).toContain(
      "agentv: notes.jsonl:1:19: invalid JSON: Expected ',' or '}' after property value\n",
    );
    expect(bad.stderr).not.toContain('    at ');
  });
});

describe('agentv eval case selection', () => {
  it('--list prints file, id, target and tags (file tags merged) and runs nothing', async () => {
    project = await createShardProject();
    const run = await runAgentv(['eval', 'evals', '--list', '--eval-id', 'alpha-1*'], project.dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('evals/alpha.yaml  alpha-1  default  [alpha, even]');
    expect(run.stdout).toContain('evals/alpha.yaml  alpha-10  default  [alpha, odd]');
    expect(run.stdout).toContain('6 case(s) selected');
    expect(run.stdout).not.toContain('beta');
    expect(run.stdout).not.toContain('Results:');
  });

  it('--tag / --exclude-tag and --filter combine with --eval-id', async () => {
    project = await createShardProject();
    const ids = async (args: string[]) => {
      const run = await runAgentv(['eval', 'evals', '--list', ...args], project!.dir);
      expect(run.code).toBe(0);
      return run.stdout
        .split('\n')
        .filter((line) => line.startsWith('evals/'))
        .map((line) => line.split(/\s+/)[1])
        .sort();
    };
    expect(await ids(['--tag', 'alpha', '--exclude-tag', 'even'])).toEqual([
      'alpha-10',
      'alpha-12',
      'alpha-14',
      'alpha-2',
      'alpha-4',
      'alpha-6',
      'alpha-8',
    ]);
    expect(await ids(['--tag', 'alpha', '--tag', 'odd', '--exclude-tag', 'even'])).toHaveLength(
      7 + 5, // odd alpha cases, odd beta cases (beta-2,4,6,8 and beta-crash)
    );
    expect(await ids(['--filter', 'beta-*', '--eval-id', '*-1', '--eval-id', '*-2'])).toEqual([
      'beta-1',
      'beta-2',
    ]);

    const run = await runAgentv(['eval', 'evals', '--filter', 'gamma-*'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no case id matches --filter gamma-*');
    const tagged = await runAgentv(['eval', 'evals', '--tag', 'nope'], project.dir);
    expect(tagged.code).toBe(2);
    expect(tagged.stderr).toContain('no case is left after --tag nope');
    expect(tagged.stderr).toContain('hint: tags in these files: alpha, even, odd');
  });

  it('runs only the tagged cases', async () => {
    project = await createShardProject();
    const run = await runAgentv(
      ['eval', 'evals', '--tag', 'even', '--filter', 'alpha-*', '--out', 'out.jsonl'],
      project.dir,
    );
    const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(lines.map((line) => line.eval_id).sort()).toEqual([
      'alpha-1',
      'alpha-11',
      'alpha-13',
      'alpha-3',
      'alpha-5',
      'alpha-7',
      'alpha-9',
    ]);
    expect(run.code).toBe(1); // alpha-5 fails its check
  });
});

describe('agentv eval --shard with a batch target', () => {
  it("sends one batch per shard holding exactly that shard's cases", async () => {
    const runner = `
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
const [input, output] = process.argv.slice(2);
const requests = readFileSync(input, 'utf8').split('\\n').filter(Boolean).map((line) => JSON.parse(line));
appendFileSync('batches.log', requests.map((request) => request.id).join(',') + '\\n');
writeFileSync(output, requests.map((request) => JSON.stringify({ id: request.id, text: 'ok' })).join('\\n') + '\\n');
`;
    const cases = Array.from(
      { length: 12 },
      (_, i) =>
        `  - id: c${i}\n    input_messages: [{ role: user, content: "q${i}" }]\n` +
        '    evaluators:\n      - { name: ok, type: equals, value: ok }\n',
    ).join('');
    project = await createProject({
      'runner.mjs': runner,
      '.agentv/targets.yaml':
        'targets:\n  - name: default\n    provider: cli\n    cwd: ..\n    provider_batching: true\n    command_template: node runner.mjs {INPUT_FILE} {OUTPUT_FILE}\n',
      'evals/batch.yaml': `evalcases:\n${cases}`,
    });
    const seen: string[] = [];
    for (const shard of [1, 2]) {
      const run = await runAgentv(
        ['eval', 'evals', '--shard', `${shard}/2`, '--out', `s${shard}.jsonl`],
        project.dir,
      );
      expect(run.code).toBe(0);
      const ids = parseJsonl(await readFile(project.file(`s${shard}.jsonl`), 'utf8'))
        .map((line) => line.eval_id)
        .sort();
      const batches = (await readFile(project.file('batches.log'), 'utf8')).trim().split('\n');
      expect(batches).toHaveLength(shard);
      expect(batches.at(-1)!.split(',').sort()).toEqual(ids);
      seen.push(...ids);
    }
    expect(seen.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `c${i}`).sort());
  });
});
