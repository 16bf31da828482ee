import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_GUIDELINE_PATTERNS } from './config-schema.js';
import { findConfigFile, loadConfigFile } from './load-config.js';

const fixture = (name: string) => path.join(import.meta.dirname, '__fixtures__', name);

describe('loadConfigFile', () => {
  it('reads guideline_patterns', async () => {
    const result = await loadConfigFile(fixture('custom/.agentv/config.yaml'));
    expect(result).toEqual({
      value: { guidelinePatterns: ['**/*.rules.md', 'docs/guides/**'], allowedFileRoots: [] },
      issues: [],
    });
  });

  it('gives the default patterns for a file of comments', async () => {
    const result = await loadConfigFile(fixture('comments/.agentv/config.yml'));
    expect(result).toEqual({
      value: { guidelinePatterns: [...DEFAULT_GUIDELINE_PATTERNS], allowedFileRoots: [] },
      issues: [],
    });
    expect(DEFAULT_GUIDELINE_PATTERNS).toEqual([
      '**/*.instructions.md',
      '**/instructions/**',
      '**/*.prompt.md',
      '**/prompts/**',
    ]);
  });

  it('reports a wrong $schema and wrong types, and warns about unknown keys', async () => {
    const result = await loadConfigFile(fixture('invalid/.agentv/config.yaml'));
    expect(result.value).toBeUndefined();
    expect(
      result.issues.map(({ severity, line, message, hint }) => ({ severity, line, message, hint })),
    ).toEqual([
      {
        severity: 'error',
        line: 1,
        message: '$schema must be "agentv-config-v2", not "agentv-config-v1"',
        hint: 'use `$schema: agentv-config-v2` or remove the line',
      },
      {
        severity: 'warning',
        line: 2,
        message: 'unknown key "guideline_pattern" is ignored',
        hint: 'did you mean "guideline_patterns"?',
      },
      {
        severity: 'error',
        line: 3,
        message: 'guideline_patterns must be a list, not text ("**/*.md")',
        hint: 'write a list of globs, e.g. `guideline_patterns: ["**/*.instructions.md"]`',
      },
    ]);
  });
});

describe('loadConfigFile: allowed_file_roots', () => {
  it('resolves them against the folder holding .agentv/ and warns about missing ones', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'agentv-config-'));
    try {
      await mkdir(path.join(root, 'project/.agentv'), { recursive: true });
      await mkdir(path.join(root, 'shared'));
      const file = path.join(root, 'project/.agentv/config.yaml');
      await writeFile(file, 'allowed_file_roots:\n  - ../shared\n  - /no/such/folder\n');
      const result = await loadConfigFile(file);
      expect(result.value?.allowedFileRoots).toEqual([
        path.join(root, 'shared'),
        '/no/such/folder',
      ]);
      expect(
        result.issues.map(({ severity, line, message }) => ({ severity, line, message })),
      ).toEqual([
        {
          severity: 'warning',
          line: 3,
          message:
            'allowed_file_roots: /no/such/folder is not a folder (resolved to /no/such/folder)',
        },
      ]);

      await writeFile(file, 'allowed_file_roots: ../shared\n');
      const wrong = await loadConfigFile(file);
      expect(wrong.value).toBeUndefined();
      expect(wrong.issues.map(({ line, hint }) => ({ line, hint }))).toEqual([
        {
          line: 1,
          hint: 'write a list of folders, e.g. `allowed_file_roots: [../shared-fixtures, /data/evals]`',
        },
      ]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('findConfigFile', () => {
  it('finds .agentv/config.yaml in the nearest ancestor below the repository root', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'agentv-config-'));
    try {
      await mkdir(path.join(root, '.git'));
      await mkdir(path.join(root, '.agentv'));
      await mkdir(path.join(root, 'evals/suite'), { recursive: true });
      await writeFile(path.join(root, '.agentv/config.yml'), 'guideline_patterns: []\n');
      expect(await findConfigFile(path.join(root, 'evals/suite'))).toBe(
        path.join(root, '.agentv/config.yml'),
      );
      await writeFile(path.join(root, '.agentv/config.yaml'), 'guideline_patterns: []\n');
      expect(await findConfigFile(path.join(root, 'evals/suite'))).toBe(
        path.join(root, '.agentv/config.yaml'),
      );
      const evals = path.join(root, 'evals');
      expect(
        await findConfigFile(path.join(evals, 'suite'), { repoRoot: evals, cwd: evals }),
      ).toBeUndefined();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
