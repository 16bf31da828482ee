// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are ${{ NAME }} placeholders of targets files, not JS templates
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeMissingVariables } from './interpolate-env.js';
import { findTargetsFile, loadTargetsFile, parseTargetsText } from './load-targets.js';

const fixture = (name: string) => path.join(import.meta.dirname, '__fixtures__', name);
const fixturesDir = path.join(import.meta.dirname, '__fixtures__');

describe('loadTargetsFile', () => {
  it('loads the example targets file, lifting common fields and interpolating set variables', async () => {
    const result = await loadTargetsFile(fixture('spec-example.yaml'), {
      env: { MY_BASE: 'http://localhost:9000' },
    });
    expect(result.issues).toEqual([]);
    const [agent, judge] = result.value!;
    expect(agent).toEqual({
      name: 'my_agent',
      provider: 'cli',
      workers: 4,
      maxRetries: 2,
      providerBatching: false,
      timeoutSeconds: 60,
      judgeTarget: 'judge',
      line: 3,
      positions: expect.objectContaining({
        '': { line: 3, column: 5 },
        command_template: { line: 5, column: 5 },
        'healthcheck.url': { line: 9, column: 32 },
      }),
      secretValues: ['http://localhost:9000'],
      filePath: fixture('spec-example.yaml'),
      baseDir: fixturesDir,
      settings: {
        name: 'my_agent',
        provider: 'cli',
        command_template: 'node ./agent.mjs --prompt {PROMPT} --out {OUTPUT_FILE}',
        cwd: './agents',
        env: { API_BASE: 'http://localhost:9000' },
        timeout_seconds: 60,
        healthcheck: { type: 'http', url: 'http://127.0.0.1:8080/health', timeout_seconds: 5 },
        provider_batching: false,
        workers: 4,
        judge_target: 'judge',
        max_retries: 2,
      },
    });
    // OPENAI_KEY is unset: not an issue now, recorded for when a run uses the target.
    expect(judge!.missingVariables).toEqual(['OPENAI_KEY']);
    expect(judge!.settings.api_key).toBe('${{OPENAI_KEY}}');
    expect(describeMissingVariables(judge!)).toBe(
      'target "judge" needs environment variable(s) OPENAI_KEY, which are not set',
    );
    expect(agent!.missingVariables).toBeUndefined();
  });

  it('leaves out settings AgentV reads as optional references (a cwd of an unset ${{ VAR }}), not other ones', async () => {
    const text = [
      'targets:',
      '  - name: agent',
      '    provider: cli',
      '    command_template: node agent.mjs {PROMPT}',
      '    cwd: ${{ AGENT_DIR }}',
      '    healthcheck:',
      '      command_template: node ready.mjs',
      '      cwd: ${{ READY_DIR }}',
      '  - name: judge',
      '    provider: azure',
      '    endpoint: ${{ AZURE_ENDPOINT }}',
      '    api_key: ${{ AZURE_KEY }}',
      '    model: gpt-4o',
      '    version: ${{ AZURE_VERSION }}',
      '  - name: placed',
      '    provider: cli',
      '    command_template: node agent.mjs {PROMPT}',
      '    cwd: ${{ SET_DIR }}/sub',
    ].join('\n');
    const result = await parseTargetsText(text, '/p/targets.yaml', {
      env: { READY_DIR: ' ', AZURE_KEY: 'k', SET_DIR: '/tmp' },
    });
    expect(result.issues).toEqual([]);
    const [agent, judge, placed] = result.value!;
    expect(agent!.settings.cwd).toBeUndefined();
    expect(agent!.settings.healthcheck).toEqual({
      type: 'command',
      command_template: 'node ready.mjs',
    });
    expect(agent!.missingVariables).toBeUndefined();
    // An Azure endpoint is required: its unset variable is still reported when the target is used.
    expect(judge!.settings.version).toBeUndefined();
    expect(judge!.missingVariables).toEqual(['AZURE_ENDPOINT']);
    // Only a value that is a reference and nothing else can be absent.
    expect(placed!.settings.cwd).toBe('/tmp/sub');
  });

  it('interpolates from the given env, not the process environment', async () => {
    const result = await loadTargetsFile(fixture('spec-example.yaml'), {
      env: { MY_BASE: 'b', OPENAI_KEY: 'sk-test' },
    });
    expect(result.value![1]!.settings.api_key).toBe('sk-test');
    expect(result.value![1]!.missingVariables).toBeUndefined();
  });

  it("converts a target's own camelCase keys to snake_case, not those inside its settings", async () => {
    const result = await loadTargetsFile(fixture('camel-case.yaml'), { env: {} });
    expect(result.issues).toEqual([]);
    const [target] = result.value!;
    expect(target).toMatchObject({
      providerBatching: true,
      batchSize: 50,
      maxRetries: 0,
      timeoutSeconds: 30,
      judgeTarget: 'judge',
    });
    expect(target!.settings).toMatchObject({
      command_template: 'node ./batch.mjs --in {INPUT_FILE} --out {OUTPUT_FILE}',
      files_format: '--file {path}',
      // Keys inside provider settings are the provider's to read (the cli provider accepts both spellings).
      healthcheck: { type: 'command', commandTemplate: 'node ./ready.mjs', timeoutSeconds: 2 },
      env: { apiBase: 'keep-this-key' },
    });
    expect(Object.keys(target!.settings)).not.toContain('commandTemplate');
  });

  it('places unknown-key warnings on the camelCase key as written', async () => {
    const result = await loadTargetsFile(fixture('camel-case.yaml'), {
      env: {},
      knownKeys: { cli: ['command_template', 'env', 'healthcheck'] },
    });
    expect(
      result.issues.map(({ line, column, target, message }) => ({ line, column, target, message })),
    ).toEqual([
      {
        line: 6,
        column: 5,
        target: 'batch_agent',
        message: 'unknown key "filesFormat" for provider "cli" is ignored',
      },
    ]);
  });

  it('reports every invalid field, naming the target and field, without quoting values', async () => {
    const result = await loadTargetsFile(fixture('invalid-targets.yaml'), { env: {} });
    expect(result.value).toBeUndefined();
    expect(result.issues.map(({ line, target, message }) => ({ line, target, message }))).toEqual([
      {
        line: 1,
        target: undefined,
        message:
          '$schema must be one of "agentv-targets-v2.2", "agentv-targets-v2", not "agentv-targets-v3"',
      },
      { line: 5, target: 'agent', message: 'workers must be at least 1' },
      { line: 6, target: 'agent', message: 'max_retries must be at least 0' },
      { line: 7, target: 'agent', message: 'provider_batching must be true or false, not text' },
      { line: 8, target: 'agent', message: 'batch_size must be a whole number, not a number' },
      { line: 9, target: 'agent', message: 'timeout_seconds must be greater than 0' },
      { line: 10, target: 'agent', message: 'judge_target must be text, not a whole number' },
      { line: 11, target: undefined, message: 'targets[1] is missing required key "name"' },
      { line: 12, target: 'nameless-provider', message: 'missing required key "provider"' },
      { line: 13, target: 'agent', message: 'duplicate target name "agent" on lines 3 and 13' },
      { line: 15, target: undefined, message: 'targets[4] must be a mapping, not text' },
    ]);
    expect(result.issues.every((issue) => issue.severity === 'error' && issue.hint)).toBe(true);
  });

  it('still lets the provider check a target whose common settings are invalid', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-targets-'));
    try {
      const file = path.join(dir, 'targets.yaml');
      await writeFile(
        file,
        'targets:\n  - name: llm\n    provider: fake\n    max_retries: lots\n    model: 7\n',
      );
      const inspected: string[] = [];
      const result = await loadTargetsFile(file, {
        env: {},
        inspectTarget: (target) => {
          inspected.push(target.name);
          return [{ severity: 'error', path: ['model'], message: 'model must be text' }];
        },
      });
      expect(inspected).toEqual(['llm']);
      expect(result.value).toBeUndefined();
      expect(result.issues.map(({ line, message }) => `${line}: ${message}`)).toEqual([
        expect.stringMatching(/^4: max_retries must be/),
        '5: model must be text',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('places the issues of inspectTarget on the key their path names, keeping the targets', async () => {
    const result = await loadTargetsFile(fixture('camel-case.yaml'), {
      env: {},
      inspectTarget: (target) => [
        { severity: 'error', path: ['command_template'], message: `${target.name}: bad template` },
        {
          severity: 'warning',
          path: ['healthcheck', 'timeout_seconds'],
          message: 'slow',
          hint: 'h',
        },
        { severity: 'warning', message: 'whole target' },
      ],
    });
    expect(result.value?.map((target) => target.name)).toEqual(['batch_agent']);
    expect(
      result.issues.map(({ severity, line, column, target, message, hint }) => ({
        severity,
        line,
        column,
        target,
        message,
        hint,
      })),
    ).toEqual([
      {
        severity: 'warning',
        line: 3,
        column: 5,
        target: 'batch_agent',
        message: 'whole target',
        hint: undefined,
      },
      {
        severity: 'error',
        line: 5,
        column: 5,
        target: 'batch_agent',
        message: 'batch_agent: bad template',
        hint: undefined,
      },
      {
        severity: 'warning',
        line: 15,
        column: 7,
        target: 'batch_agent',
        message: 'slow',
        hint: 'h',
      },
    ]);
  });

  it('reports an empty targets list', async () => {
    const result = await loadTargetsFile(fixture('empty-targets.yaml'));
    expect(result.issues.map((issue) => [issue.line, issue.message])).toEqual([
      [1, 'targets must have at least 1 entry'],
    ]);
  });

  it('warns about unknown keys for providers with known keys, and about doubled spellings', async () => {
    const result = await loadTargetsFile(fixture('conflicts.yaml'), {
      env: {},
      knownKeys: { cli: ['command_template', 'cwd', 'env'] },
    });
    expect(result.value![0]!.timeoutSeconds).toBe(20);
    expect(result.issues).toMatchObject([
      {
        severity: 'warning',
        line: 4,
        target: 'both',
        message:
          '"timeoutSeconds" and "timeout_seconds" are the same setting; "timeoutSeconds" is ignored',
      },
      {
        severity: 'warning',
        line: 6,
        target: 'both',
        message: 'unknown key "comand_template" for provider "cli" is ignored',
        hint: 'did you mean "command_template"?',
      },
    ]);
    const unchecked = await loadTargetsFile(fixture('conflicts.yaml'), { env: {} });
    expect(unchecked.issues.map((issue) => issue.line)).toEqual([4]);
  });

  it('converts placeholder-filled numbers and booleans and skips unset ones', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-targets-'));
    try {
      const file = path.join(dir, 'targets.yaml');
      await writeFile(
        file,
        [
          'targets:',
          '  - name: a',
          '    provider: cli',
          '    workers: "${{ WORKERS }}"',
          '    provider_batching: ${{ BATCHING }}',
          '    timeout_seconds: ${{ UNSET_TIMEOUT }}',
          '',
        ].join('\n'),
      );
      const result = await loadTargetsFile(file, { env: { WORKERS: '3', BATCHING: 'true' } });
      expect(result.issues).toEqual([]);
      expect(result.value![0]).toMatchObject({
        workers: 3,
        providerBatching: true,
        missingVariables: ['UNSET_TIMEOUT'],
      });
      expect(result.value![0]!.timeoutSeconds).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('max_output_bytes', () => {
  const load = (value: string, env: Record<string, string> = {}) =>
    parseTargetsText(
      ['targets:', '  - name: a', '    provider: cli', `    max_output_bytes: ${value}`, ''].join(
        '\n',
      ),
      'targets.yaml',
      { env },
    );

  it('reads a number of bytes or a size with a binary unit', async () => {
    expect((await load('65536')).value![0]!.maxOutputBytes).toBe(65536);
    expect((await load('64KiB')).value![0]!.maxOutputBytes).toBe(65536);
    expect((await load('"16 MiB"')).value![0]!.maxOutputBytes).toBe(16 * 1024 * 1024);
    expect((await load('1.5mib')).value![0]!.maxOutputBytes).toBe(1.5 * 1024 * 1024);
    expect((await load('${{ CAP }}', { CAP: '4096' })).value![0]!.maxOutputBytes).toBe(4096);
    expect((await load('${{ CAP }}', { CAP: '2MiB' })).value![0]!.maxOutputBytes).toBe(
      2 * 1024 * 1024,
    );
    expect(
      (await parseTargetsText('targets: [{name: a, provider: cli}]', 't.yaml', { env: {} }))
        .value![0],
    ).not.toHaveProperty('maxOutputBytes');
  });

  it('refuses ambiguous units, fractions of a byte and sizes past 64 MiB, with a hint', async () => {
    for (const value of ['16MB', 'lots', '0', '1.5', '65MiB', String(64 * 1024 * 1024 + 1)]) {
      const { issues } = await load(value);
      expect(issues, value).toHaveLength(1);
      expect(issues[0]).toMatchObject({ severity: 'error', line: 4, target: 'a' });
      expect(issues[0]!.message, value).toMatch(/^max_output_bytes[ :]/);
      expect(issues[0]!.hint).toContain('units KiB, MiB, GiB');
    }
    expect((await load('64MiB')).issues).toEqual([]);
  });
});

describe('targets discovery and baseDir', () => {
  let root: string;
  afterEach(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  async function project(files: string[]): Promise<string> {
    root = await mkdtemp(path.join(os.tmpdir(), 'agentv-find-'));
    await mkdir(path.join(root, '.git'));
    for (const name of files) {
      await mkdir(path.dirname(path.join(root, name)), { recursive: true });
      await writeFile(path.join(root, name), 'targets:\n  - { name: default, provider: mock }\n');
    }
    return root;
  }

  it('prefers the nearest directory, and targets.yaml over .agentv/ within a directory', async () => {
    const dir = await project(['evals/.agentv/targets.yaml', 'evals/targets.yml', 'targets.yaml']);
    expect(await findTargetsFile(path.join(dir, 'evals'))).toBe(
      path.join(dir, 'evals/targets.yml'),
    );
    await mkdir(path.join(dir, 'evals/deeper/still'), { recursive: true });
    expect(await findTargetsFile(path.join(dir, 'evals/deeper/still'))).toBe(
      path.join(dir, 'evals/targets.yml'),
    );
  });

  it('tries the names in order within a directory', async () => {
    const dir = await project(['.agentv/targets.yml', '.agentv/targets.yaml']);
    expect(await findTargetsFile(dir)).toBe(path.join(dir, '.agentv/targets.yaml'));
  });

  it('stops at the repository root, then tries the cwd', async () => {
    const dir = await project([
      'targets.yaml',
      'repo/.git/HEAD',
      'repo/evals/case.yaml',
      'elsewhere/.agentv/targets.yaml',
    ]);
    const evals = path.join(dir, 'repo/evals');
    expect(await findTargetsFile(evals, { cwd: path.join(dir, 'repo') })).toBeUndefined();
    expect(await findTargetsFile(evals, { cwd: path.join(dir, 'elsewhere') })).toBe(
      path.join(dir, 'elsewhere/.agentv/targets.yaml'),
    );
    // An explicit repository root overrides the .git lookup.
    expect(await findTargetsFile(evals, { repoRoot: dir, cwd: evals })).toBe(
      path.join(dir, 'targets.yaml'),
    );
  });

  it('resolves baseDir to the folder holding .agentv', async () => {
    const dir = await project(['.agentv/targets.yaml', 'tools/targets.yaml']);
    const inAgentv = await loadTargetsFile(path.join(dir, '.agentv/targets.yaml'));
    expect(inAgentv.value![0]!.baseDir).toBe(dir);
    const plain = await loadTargetsFile(path.join(dir, 'tools/targets.yaml'));
    expect(plain.value![0]!.baseDir).toBe(path.join(dir, 'tools'));
  });
});
