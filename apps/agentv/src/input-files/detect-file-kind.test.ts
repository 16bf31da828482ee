import { describe, expect, it } from 'vitest';
import { detectFileKind, isOtherToolsYaml } from './detect-file-kind.js';

describe('detectFileKind', () => {
  it('uses the $schema values of the original format first', () => {
    expect(detectFileKind('/p/anything.yaml', '$schema: agentv-eval-v2\n')).toBe('eval');
    expect(detectFileKind('/p/evals/x.yaml', '# c\n$schema: agentv-targets-v2.2\n')).toBe(
      'targets',
    );
    expect(detectFileKind('/p/settings.yml', "$schema: 'agentv-config-v2'\n")).toBe('config');
    // Another version is still that kind of file; its loader reports the unsupported version.
    expect(detectFileKind('/p/targets.yaml', '$schema: agentv-eval-v1\n')).toBe('eval');
  });

  it('reads the yaml-language-server comment that agentv init writes', () => {
    const head =
      '# yaml-language-server: $schema=../node_modules/@agentv/core/schemas/targets.schema.json\n';
    expect(detectFileKind('/p/agents.yaml', head)).toBe('targets');
  });

  it('falls back to the name and place of the file', () => {
    expect(detectFileKind('/p/targets.yaml', 'targets: []\n')).toBe('targets');
    expect(detectFileKind('/p/.agentv/targets.yml', '')).toBe('targets');
    expect(detectFileKind('/p/.agentv/config.yaml', '')).toBe('config');
    expect(detectFileKind('/p/config.yaml', 'evalcases: []\n')).toBe('eval');
    expect(detectFileKind('/p/evals/refunds.yml', 'evalcases: []\n')).toBe('eval');
  });

  it('knows a workspace file by its keys', () => {
    const workspace = 'template: ./fixture\nmode: temp\nhooks:\n  before_each: { command: x }\n';
    expect(detectFileKind('/p/evals/workspace.yaml', workspace)).toBe('workspace');
    expect(detectFileKind('/p/w.yml', '# shared\nrepos:\n  - { path: r, repo: ./r }\n')).toBe(
      'workspace',
    );
    // An eval file with a workspace, or a file with other keys too, is an eval file.
    expect(detectFileKind('/p/a.yaml', `${workspace}evalcases: []\n`)).toBe('eval');
    expect(detectFileKind('/p/a.yaml', 'workspace:\n  template: ./x\n')).toBe('eval');
    expect(detectFileKind('/p/a.yaml', 'mode: temp\n')).toBe('eval');
  });

  it('ignores a nested $schema key', () => {
    expect(detectFileKind('/p/a.yaml', 'evalcases:\n  - $schema: agentv-targets-v2.2\n')).toBe(
      'eval',
    );
  });
});

describe('isOtherToolsYaml', () => {
  it("knows other tools' files by their keys, never one with a key of an eval file", () => {
    expect(isOtherToolsYaml('/p/ci.yml', 'name: ci\non: push\njobs: {}\n')).toBe(true);
    expect(isOtherToolsYaml('/p/k.yaml', 'apiVersion: v1\nkind: Pod\n---\nkind: Service\n')).toBe(
      true,
    );
    // One key of an eval file (AgentV's or upstream's) is enough to check it as one.
    expect(isOtherToolsYaml('/p/a.yaml', 'name: x\ndescription: draft\n')).toBe(false);
    expect(isOtherToolsYaml('/p/a.yaml', 'name: x\ntests:\n  - id: a\n')).toBe(false);
    expect(
      isOtherToolsYaml('/p/a.yaml', '# yaml-language-server: $schema=./eval.schema.json\nx: 1\n'),
    ).toBe(false);
    // A near miss of an eval file's key is a broken eval file: checked, and the mistake reported.
    expect(isOtherToolsYaml('/p/a.yaml', 'name: x\nevalCases:\n  - id: a\n')).toBe(false);
    expect(isOtherToolsYaml('/p/a.yaml', 'name: x\neval_case:\n  - id: a\n')).toBe(false);
    expect(isOtherToolsYaml('/p/a.yaml', 'name: x\nevalcase:\n  - id: a\n')).toBe(false);
    // No keys at all (empty, a list, a comment): checked, and its loader says what is wrong.
    expect(isOtherToolsYaml('/p/a.yaml', '')).toBe(false);
    expect(isOtherToolsYaml('/p/a.yaml', '- id: a\n')).toBe(false);
    // Targets, config and workspace files are known otherwise.
    expect(isOtherToolsYaml('/p/targets.yaml', 'other: 1\n')).toBe(false);
    expect(isOtherToolsYaml('/p/w.yaml', 'template: ./fixture\n')).toBe(false);
  });
});
