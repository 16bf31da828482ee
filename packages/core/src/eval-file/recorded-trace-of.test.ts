import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadEvalFile } from './load-eval-file.js';

// A case's `trace: { source, path }`: resolved from the eval file's folder, kept inside the project.

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-recorded-'));
  dirs.push(dir);
  await mkdir(path.join(dir, '.git'));
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  return dir;
}

const caseWith = (id: string, trace: string) =>
  `  - id: ${id}\n    trace: ${trace}\n    evaluators: [{ type: contains, value: x }]\n`;

describe('trace: { source, path } on a case', () => {
  it('resolves the path from the eval file and needs no input_messages', async () => {
    const dir = await project({
      'evals/cases.yaml': `evalcases:\n${caseWith('one', '{ source: codex-session, path: s/rollout.jsonl }')}`,
      'evals/s/rollout.jsonl': '{}\n',
    });
    const result = await loadEvalFile(path.join(dir, 'evals/cases.yaml'));
    expect(result.issues).toEqual([]);
    expect(result.value?.cases[0]?.recordedTrace).toEqual({
      source: 'codex-session',
      path: path.join(dir, 'evals/s/rollout.jsonl'),
      written: 's/rollout.jsonl',
    });
  });

  it('refuses a file that is missing, outside the project, or a link out of it', async () => {
    const outside = await project({ 'session.jsonl': '{}\n' });
    const dir = await project({
      'evals/cases.yaml': `evalcases:\n${[
        caseWith('missing', '{ source: claude-session, path: none.jsonl }'),
        caseWith(
          'dotdot',
          `{ source: codex-session, path: ../../${path.basename(outside)}/session.jsonl }`,
        ),
        caseWith('link', '{ source: otlp-file, path: link.jsonl }'),
        caseWith('proc', '{ source: otlp-file, path: /proc/self/environ }'),
      ].join('')}`,
    });
    await symlink(path.join(outside, 'session.jsonl'), path.join(dir, 'evals/link.jsonl'));
    const result = await loadEvalFile(path.join(dir, 'evals/cases.yaml'));
    const messages = Object.fromEntries(
      result.issues.map((issue) => [issue.caseId, `${issue.line}: ${issue.message}`]),
    );
    expect(messages.missing).toMatch(/^3: trace file none\.jsonl \(claude-session\) not found/);
    expect(messages.dotdot).toMatch(/^6: trace file .* outside the project root/);
    expect(messages.link).toMatch(
      /^9: trace file link\.jsonl resolves to .*, a link to .*, outside/,
    );
    expect(messages.proc).toMatch(/^12: trace file .*\/proc/);
  });
});
