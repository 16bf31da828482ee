// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is targets-file syntax, not a JS template
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { settingsIssues } from './settings-issues.js';

const schema = z.object({
  command: z.string({ error: 'must be a string' }),
  seconds: z.number({ error: 'must be a number' }).optional(),
  url: z
    .string()
    .refine((value) => value.startsWith('http'), {
      message: 'must be an http URL',
      params: { hint: 'e.g. http://127.0.0.1:8080' },
    })
    .optional(),
});

describe('settingsIssues', () => {
  it('finds nothing in valid settings', () => {
    expect(settingsIssues(schema, { command: 'run', seconds: 3 })).toEqual([]);
  });

  it("turns each problem into an error at its setting's path, with the setting's hint", () => {
    expect(
      settingsIssues(schema, { seconds: 'soon' }, { hints: { command: 'write the command' } }),
    ).toEqual([
      {
        severity: 'error',
        path: ['command'],
        message: 'must be a string',
        hint: 'write the command',
      },
      { severity: 'error', path: ['seconds'], message: 'must be a number' },
    ]);
  });

  it("prefers a refinement's own hint, and nests under options.path", () => {
    expect(
      settingsIssues(schema, { command: 'run', url: 'ftp://x' }, { path: ['healthcheck'] }),
    ).toEqual([
      {
        severity: 'error',
        path: ['healthcheck', 'url'],
        message: 'must be an http URL',
        hint: 'e.g. http://127.0.0.1:8080',
      },
    ]);
  });

  it('leaves out a value whose ${{ VAR }} is unset: core reports the variable', () => {
    expect(settingsIssues(schema, { command: 'run', seconds: '${{ SECONDS }}' })).toEqual([]);
  });
});
