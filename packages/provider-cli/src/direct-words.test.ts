import { describe, expect, it } from 'vitest';
import { directWords } from './direct-words.js';
import { renderCommandTemplate } from './render-command-template.js';

const values = { PROMPT: `a 'b' "c" $(x) \`y\` *;|\n`, EVAL_ID: 'case-1', ATTEMPT: '0' };

describe('directWords', () => {
  it('runs a template of plain words without a shell, each value byte for byte in its argument', () => {
    const rendered = renderCommandTemplate(
      `./agent.py --id={EVAL_ID} {PROMPT} "{PROMPT}" '{ATTEMPT}' --out=a/b.txt,x:y@z%1+2`,
      values,
    );
    expect(rendered.argv).toEqual([
      './agent.py',
      '--id=case-1',
      values.PROMPT,
      values.PROMPT,
      '0',
      '--out=a/b.txt,x:y@z%1+2',
    ]);
  });

  it('gives an empty value as an empty argument, as the quoted shell reference does', () => {
    expect(renderCommandTemplate('  agent\t{PROMPT}  ', { PROMPT: '' }).argv).toEqual([
      'agent',
      '',
    ]);
  });

  it.each([
    ['a shell builtin as the program', 'echo answer {EVAL_ID}'],
    ['a shell keyword', 'time agent {PROMPT}'],
    ['an assignment before the program', 'X=1 agent {PROMPT}'],
    ['a redirection', 'agent {PROMPT} > {OUTPUT_FILE}'],
    ['a pipe', 'agent {PROMPT} | tee log'],
    ['a list', 'agent {PROMPT}; echo done'],
    ['a variable', 'agent "$HOME" {PROMPT}'],
    ['an AGENTV_ variable named directly', 'agent "$AGENTV_PROMPT"'],
    ['a glob', 'agent *.txt {PROMPT}'],
    ['a tilde', 'agent ~/x {PROMPT}'],
    ['a comment', 'agent {PROMPT} #note'],
    ['a quoted literal', "agent 'a b' {PROMPT}"],
    ['a placeholder with text in its quotes', 'agent "id: {EVAL_ID}"'],
    ['a backslash', 'agent a\\ b {PROMPT}'],
    ['a brace expansion of bash', 'agent a{b,c} {PROMPT}'],
    ['an escaped placeholder', 'agent {{PROMPT}}'],
    ['a list placeholder', 'agent {FILES}'],
    ['a second line', 'agent {PROMPT}\nagent2'],
  ])('leaves %s to the shell', (_, template) => {
    expect(directWords(template)).toBeUndefined();
  });
});
