import { cp, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// examples/conversation, run as its README says: offline, both targets are local scripts.

const EXAMPLE = fileURLToPath(new URL('../../../../examples/conversation/', import.meta.url));

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

describe('examples/conversation', () => {
  it('passes the scripted conversation and the simulated customer, and reports them as chats', async () => {
    project = await createProject({});
    await cp(EXAMPLE, project.dir, {
      recursive: true,
      filter: (source) => !/[/\\](cache|results)$/.test(source),
    });
    const validated = await runAgentv(['validate', '.'], project.dir);
    expect(validated.code).toBe(0);
    const run = await runAgentv(
      ['eval', 'evals/support.yaml', '--out', 'out.jsonl', '--html', 'report.html'],
      project.dir,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    const byId = Object.fromEntries(lines.map((line) => [line.eval_id, line]));
    expect(byId['refund-scripted']).toMatchObject({ passed: true, conversation_end: 'completed' });
    expect(byId['refund-scripted']!.turns).toHaveLength(4);
    expect(byId['refund-scripted']!.turns[3].answer).toContain('4711');
    expect(byId['refund-simulated']).toMatchObject({
      passed: true,
      conversation_end: 'goal_reached',
    });
    expect(byId['refund-simulated']!.turns.map((turn: { source: string }) => turn.source)).toEqual([
      'simulated',
      'simulated',
      'simulated',
    ]);
    const html = await readFile(project.file('report.html'), 'utf8');
    expect(html).toContain('"conversation":{"end":"goal_reached"');
  });
});
