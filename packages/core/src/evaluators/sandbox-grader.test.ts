import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isInvalidInputError } from '../errors/invalid-input-error.js';
import { evaluate } from '../evaluate/evaluate.js';
import { mockProviderFactory } from '../provider/mock-provider.js';
import { createProviderRegistry } from '../provider/provider-registry.js';

let dir: string;
const providers = createProviderRegistry([mockProviderFactory]);

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agentv-in-sandbox-'));
  await mkdir(path.join(dir, 'evals', 'app'), { recursive: true });
  await writeFile(path.join(dir, 'evals', 'app', 'a.txt'), 'a\n');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function failure(graders: string): Promise<string> {
  await writeFile(
    path.join(dir, 'evals', 'suite.yaml'),
    `workspace: { template: ./app }
evalcases:
  - id: first
    input_messages: [{ role: user, content: hi }]
    evaluators:
${graders}`,
  );
  const error = await evaluate({
    evalFiles: ['evals/suite.yaml'],
    providers,
    cwd: dir,
    targetDefinitions: [{ name: 'default', provider: 'mock', response: 'ok' }],
  }).catch((caught: unknown) => caught);
  expect(isInvalidInputError(error)).toBe(true);
  // The message, then the hint (where a did-you-mean is).
  return `${(error as Error).message}\n${(error as { hint?: string }).hint ?? ''}`;
}

describe('in_sandbox on command and code_judge graders', () => {
  it('in_sandbox: true in a case whose workspace has no docker: is refused before the run', async () => {
    const message = await failure(
      '      - { name: tests, type: command, command: "true", in_sandbox: true }\n',
    );
    expect(message).toMatch(
      /evals\/suite\.yaml:\d+:\d+: case "first": grader "tests" \(command\) has in_sandbox: true, and the case's workspace has no docker: block/,
    );
  });

  it('in_sandbox must be a boolean', async () => {
    const message = await failure(
      '      - { name: judge, type: code_judge, script: "true", in_sandbox: "yes" }\n',
    );
    expect(message).toMatch(/"in_sandbox" must be true or false, got "yes"/);
  });

  it('a misspelt in_sandbox is an unknown key with a did-you-mean', async () => {
    const message = await failure(
      '      - { name: tests, type: command, command: "true", in_sandbx: false }\n',
    );
    expect(message).toMatch(/in_sandbx/);
    expect(message).toMatch(/in_sandbox/);
  });
});
