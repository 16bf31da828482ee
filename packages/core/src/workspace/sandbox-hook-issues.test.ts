import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { isInvalidInputError } from '../errors/invalid-input-error.js';
import { evaluate } from '../evaluate/evaluate.js';
import { mockProviderFactory } from '../provider/mock-provider.js';
import { createProviderRegistry } from '../provider/provider-registry.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agentv-hook-cwd-'));
  await mkdir(path.join(dir, 'evals', 'app'), { recursive: true });
  await mkdir(path.join(dir, 'evals', 'tools'), { recursive: true });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

it('a hook cwd the container cannot see is refused before the run; one inside a mount is fine', async () => {
  const run = async (docker: string) => {
    await writeFile(
      path.join(dir, 'evals', 'suite.yaml'),
      `workspace:
  template: ./app
  docker: ${docker}
  hooks:
    before_each: { command: 'true', cwd: ./tools }
evalcases:
  - id: first
    input_messages: [{ role: user, content: hi }]
    evaluators: [{ name: any, type: regex, pattern: "." }]
`,
    );
    return evaluate({
      evalFiles: ['evals/suite.yaml'],
      providers: createProviderRegistry([mockProviderFactory]),
      cwd: dir,
      targetDefinitions: [{ name: 'default', provider: 'mock', response: 'ok' }],
      dryRun: true,
    }).catch((caught: unknown) => caught);
  };
  const refused = await run('{ image: busybox }');
  expect(isInvalidInputError(refused)).toBe(true);
  expect((refused as Error).message).toMatch(
    /workspace hook before_each has cwd .*evals\/tools, which its container cannot see/,
  );
  // Past the check, the run needs a sandbox runtime (none is given here): proof it got that far.
  const mounted = await run('{ image: busybox, mounts: [{ source: ./tools, target: /tools }] }');
  expect(isInvalidInputError(mounted)).toBe(false);
  expect((mounted as Error).message).toMatch(/no sandbox runtime/);
});
