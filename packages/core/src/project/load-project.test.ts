// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} are placeholders of targets files, not JS templates
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mockProviderFactory } from '../provider/mock-provider.js';
import { createProviderRegistry } from '../provider/provider-registry.js';
import { loadProject } from './load-project.js';

const registry = createProviderRegistry([mockProviderFactory]);
const EVAL = [
  'evalcases:',
  '  - id: one',
  '    execution: { target: used }',
  '    input_messages: [{ role: user, content: hi }]',
  '    evaluators: [{ type: contains, value: hi }]',
].join('\n');
const TARGETS = [
  'targets:',
  '  - name: used',
  '    provider: mock',
  '    response: "${{ AGENTV_TEST_FROM_DOTENV }}"',
  '  - name: spare',
  '    provider: vscode',
  '  - name: broken',
  '    provider: codex',
  '    key: "${{ AGENTV_TEST_UNSET }}"',
].join('\n');

describe('loadProject', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-project-'));
    await mkdir(path.join(dir, '.git'));
    await writeFile(path.join(dir, '.env'), 'AGENTV_TEST_FROM_DOTENV=from-dotenv\nHOME=not-mine\n');
    await writeFile(path.join(dir, 'targets.yaml'), TARGETS);
    await writeFile(path.join(dir, 'a.yaml'), EVAL);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('carries the merged environment and leaves process.env unchanged', async () => {
    const before = { ...process.env };
    const project = await loadProject({
      cwd: dir,
      providerRegistry: registry,
      evalFiles: [path.join(dir, 'a.yaml')],
      mode: 'run',
    });
    expect(process.env).toEqual(before);
    expect(process.env.AGENTV_TEST_FROM_DOTENV).toBeUndefined();
    expect(project.env.AGENTV_TEST_FROM_DOTENV).toBe('from-dotenv');
    // The shell's variables win over `.env`.
    expect(project.env.HOME).toBe(process.env.HOME);
    const targets = project.targets.get(path.join(dir, 'targets.yaml'));
    expect(targets?.find((target) => target.name === 'used')?.settings.response).toBe(
      'from-dotenv',
    );
    // A run checks targets when it plans the cases it runs.
    expect(project.issues).toEqual([]);
  });

  it('checks for validate only the targets the eval files use, of a targets file found for them', async () => {
    const project = await loadProject({
      cwd: dir,
      providerRegistry: registry,
      evalFiles: [path.join(dir, 'a.yaml')],
      targetOverride: 'spare',
      mode: 'validate',
    });
    expect(
      project.issues.map(({ severity, line, target, message }) => ({
        severity,
        line,
        target,
        message,
      })),
    ).toEqual([
      { severity: 'error', line: 6, target: 'spare', message: 'unknown provider "vscode"' },
    ]);
  });

  it('checks every target of a targets file given to validate, with severities decided by use', async () => {
    const project = await loadProject({
      cwd: dir,
      providerRegistry: registry,
      evalFiles: [path.join(dir, 'a.yaml')],
      targetsFiles: [path.join(dir, 'targets.yaml')],
      targetOverride: 'spare',
      mode: 'validate',
    });
    expect(
      project.issues.map(({ severity, line, target, message, hint }) => ({
        severity,
        line,
        target,
        message,
        hint,
      })),
    ).toEqual([
      {
        severity: 'error',
        line: 6,
        target: 'spare',
        message: 'unknown provider "vscode"',
        hint: 'use one of: mock (used by a.yaml)',
      },
      {
        severity: 'warning',
        line: 8,
        target: 'broken',
        message: 'unknown provider "codex"; this target cannot run with this AgentV',
        hint: 'use one of: mock, or leave it for runs that do not use it',
      },
      {
        severity: 'warning',
        line: 9,
        target: 'broken',
        message: 'needs environment variable(s) AGENTV_TEST_UNSET, which are not set',
        hint: 'set AGENTV_TEST_UNSET in your shell or in a .env file; a run that uses this target fails until then',
      },
    ]);
  });
});
