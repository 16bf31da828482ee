import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportFlags } from './report-flags.js';

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(path.join(tmpdir(), 'agentv-flags-'));
  await mkdir(path.join(cwd, 'evals'));
  await writeFile(path.join(cwd, 'evals', 'a.yaml'), 'evalcases: []\n');
  await mkdir(path.join(cwd, 'old-prompts'));
  await writeFile(path.join(cwd, 'old-prompts', 'x.json'), '{}\n');
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

/** Parses like citty: `--dump-prompts` is a boolean, so its value lands among the positionals. */
function parse(rawArgs: string[], extra: Record<string, string | boolean> = {}) {
  const positionals = rawArgs.filter(
    (arg, index) => !arg.startsWith('-') && !['--out', '--junit'].includes(rawArgs[index - 1]!),
  );
  return parseReportFlags({ _: positionals, ...extra }, rawArgs, cwd);
}

describe('parseReportFlags', () => {
  it('defaults to JSONL, no dumps and no reports', async () => {
    expect(await parse(['evals/a.yaml'])).toEqual({
      outputFormat: 'jsonl',
      evalInputs: ['evals/a.yaml'],
    });
  });

  it('reads --dump-prompts with no value, a following folder, or =DIR', async () => {
    const prompts = (dir: string) => path.join(cwd, dir);
    expect((await parse(['evals/a.yaml', '--dump-prompts'])).promptDir).toBe(
      prompts('.agentv/prompts'),
    );
    expect(await parse(['evals/a.yaml', '--dump-prompts', 'out'])).toMatchObject({
      promptDir: prompts('out'),
      evalInputs: ['evals/a.yaml'],
    });
    expect((await parse(['--dump-prompts=x/y', 'evals/a.yaml'])).promptDir).toBe(prompts('x/y'));
    // A folder left by an earlier dump holds no eval files, so it is still the folder.
    expect((await parse(['evals/a.yaml', '--dump-prompts', 'old-prompts'])).promptDir).toBe(
      prompts('old-prompts'),
    );
  });

  it('leaves eval inputs after --dump-prompts alone', async () => {
    for (const input of ['evals/a.yaml', 'evals', 'evals/*.yaml', 'other.yml']) {
      const flags = await parse(['--dump-prompts', input]);
      expect(flags.promptDir).toBe(path.join(cwd, '.agentv', 'prompts'));
      expect(flags.evalInputs).toEqual([input]);
    }
    expect((await parse(['--dump-prompts', '--verbose', 'evals'])).evalInputs).toEqual(['evals']);
  });

  it('says what happened when --dump-prompts took the only path', async () => {
    await expect(parse(['--dump-prompts', 'nonexistent'])).rejects.toThrow(
      'no eval files given: --dump-prompts took "nonexistent" as its folder',
    );
    await expect(parse(['evals', '--dump-prompts='])).rejects.toThrow(
      '--dump-prompts= needs a folder',
    );
  });

  it('takes the output format from the flag, else from the --out extension', async () => {
    expect((await parse(['evals'], { 'output-format': 'YAML' })).outputFormat).toBe('yaml');
    expect((await parse(['evals', '--out', 'r.yaml'], { out: 'r.yaml' })).outputFormat).toBe(
      'yaml',
    );
    expect((await parse(['evals'], { out: 'r.yaml', 'output-format': 'jsonl' })).outputFormat).toBe(
      'jsonl',
    );
    await expect(parse(['evals'], { 'output-format': 'csv' })).rejects.toThrow(
      '--output-format must be jsonl or yaml, got "csv"',
    );
  });

  it('resolves --dump-traces, --junit and --html against the working folder', async () => {
    expect(
      await parse(['evals'], { 'dump-traces': true, junit: 'r/junit.xml', html: 'r/run.html' }),
    ).toMatchObject({
      traceDir: path.join(cwd, '.agentv', 'traces'),
      junitPath: path.join(cwd, 'r', 'junit.xml'),
      htmlPath: path.join(cwd, 'r', 'run.html'),
    });
    await expect(parse(['evals'], { junit: '' })).rejects.toThrow('--junit needs a file path');
  });
});
