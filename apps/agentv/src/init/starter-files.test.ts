import { LLM_KINDS, type LlmKind } from '@agentv/provider-llm';
import { describe, expect, it } from 'vitest';
import { starterFiles } from './starter-files.js';

const targets = starterFiles({ targets: 't.json', config: 'c.json', eval: 'e.json' }).find(
  (file) => file.path === '.agentv/targets.yaml',
)!.content;

describe('the starter targets file', () => {
  it('documents every LLM kind AgentV has, with the variable that usually holds its key', () => {
    for (const kind of Object.keys(LLM_KINDS) as LlmKind[]) {
      expect(targets).toMatch(
        new RegExp(`^ {2}# +(- name: llm\\n {2}# +)?provider: ${kind}\\b`, 'm'),
      );
      expect(targets).toContain(`\${{ ${LLM_KINDS[kind].keyVariables[0]} }}`);
    }
  });
});
