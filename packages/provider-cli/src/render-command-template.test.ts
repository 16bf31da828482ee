import { execFileSync } from 'node:child_process';
import { ProviderError } from '@agentv/core';
import { describe, expect, it } from 'vitest';
import {
  findPlaceholders,
  MAX_ARGUMENT_BYTES,
  renderCommandTemplate,
  SUPPORTED_PLACEHOLDERS,
} from './render-command-template.js';
import { catchError } from './test-support/catch-error.js';

const allValues = {
  PROMPT: 'What is 2+2?',
  PROMPT_FILE: '/tmp/x/prompt.txt',
  GUIDELINES: 'Be brief.',
  EVAL_ID: 'math-1',
  ATTEMPT: '0',
  REPEAT: '2',
  FILES: ['/data/a.txt', '/data/b c.txt'],
  ATTACHMENTS: ['--attach=/data/a.txt'],
  OUTPUT_FILE: '/tmp/x/output.txt',
  INPUT_FILE: '/tmp/x/input.json',
};

// Runs the rendered command with a shell that prints each argument on its own line.
const argumentsOf = (command: string) =>
  execFileSync('/bin/sh', ['-c', `set -- ${command}; for a; do printf '[%s]\\n' "$a"; done`], {
    encoding: 'utf8',
  });

describe('renderCommandTemplate', () => {
  it('renders every supported placeholder as shell words', () => {
    const template = SUPPORTED_PLACEHOLDERS.map((name) => `{${name}}`).join(' ');
    expect(argumentsOf(renderCommandTemplate(template, allValues))).toBe(
      [
        '[What is 2+2?]',
        '[/tmp/x/prompt.txt]',
        '[Be brief.]',
        '[math-1]',
        '[0]',
        '[2]',
        '[/data/a.txt]',
        '[/data/b c.txt]',
        '[--attach=/data/a.txt]',
        '[/tmp/x/output.txt]',
        '[/tmp/x/input.json]',
        '',
      ].join('\n'),
    );
  });

  it('quotes every value and leaves the rest of the template as written', () => {
    expect(renderCommandTemplate('agent --id {EVAL_ID} -- {PROMPT}', allValues)).toBe(
      "agent --id 'math-1' -- 'What is 2+2?'",
    );
  });

  it('renders an empty file list as nothing, not as an empty argument', () => {
    expect(renderCommandTemplate('agent {FILES} end', { FILES: [] })).toBe('agent  end');
  });

  it('leaves lower-case braces, JSON and shell parameter expansion alone', () => {
    const template = `agent --json '{"a":1}' --home \${HOME} {lower} {PROMPT}`;
    expect(renderCommandTemplate(template, { PROMPT: 'p' })).toBe(
      `agent --json '{"a":1}' --home \${HOME} {lower} 'p'`,
    );
  });

  it('turns {{NAME}} into a literal {NAME}', () => {
    expect(renderCommandTemplate('echo {{PROMPT}} {PROMPT} {{WHATEVER}}', { PROMPT: 'x' })).toBe(
      "echo {PROMPT} 'x' {WHATEVER}",
    );
  });

  it('rejects an unknown placeholder, listing the supported ones', async () => {
    const error = (await catchError(() =>
      renderCommandTemplate('agent {QUESTION}', allValues),
    )) as ProviderError;
    expect(error.message).toMatch(/unknown placeholder \{QUESTION\}/);
    expect(error.hint).toContain('{PROMPT}, {PROMPT_FILE}');
  });

  it('rejects a NUL byte, suggesting {PROMPT_FILE}', async () => {
    const caught = await catchError(() =>
      renderCommandTemplate('agent {PROMPT}', { PROMPT: 'a\0b' }),
    );
    expect(caught).toBeInstanceOf(ProviderError);
    expect((caught as ProviderError).message).toContain('{PROMPT} contains a NUL byte');
    expect((caught as ProviderError).hint).toContain('{PROMPT_FILE}');
    expect((caught as ProviderError).retryable).toBe(false);
  });

  it('rejects a command longer than one argv string can be, suggesting {PROMPT_FILE}', async () => {
    const prompt = 'x'.repeat(MAX_ARGUMENT_BYTES);
    const caught = await catchError(() =>
      renderCommandTemplate('agent {PROMPT}', { PROMPT: prompt }),
    );
    expect((caught as ProviderError).message).toMatch(/over the 131072-byte limit.*\{PROMPT\}/);
    expect((caught as ProviderError).hint).toContain('{PROMPT_FILE}');
    expect((caught as ProviderError).retryable).toBe(false);
  });

  it('accepts a command just under the limit', () => {
    const prompt = 'é'.repeat((MAX_ARGUMENT_BYTES - 16) / 2);
    expect(renderCommandTemplate('a {PROMPT}', { PROMPT: prompt })).toHaveLength(prompt.length + 4);
  });
});

describe('findPlaceholders', () => {
  it('lists used placeholders once, in order, skipping escapes and shell expansions', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell expansion, on purpose
    expect(findPlaceholders('a {PROMPT} {{EVAL_ID}} ${HOME} {FOO_2} {PROMPT} {x}')).toEqual([
      'PROMPT',
      'FOO_2',
    ]);
  });
});
