import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { processAlive } from '../support/processes.js';
import { BIN, createProject, type Project, parseJsonl } from '../support/project.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

// Answers "quick" at once; for "stuck" records its pid, ignores SIGTERM and never ends.
const AGENT = `
import { writeFileSync } from 'node:fs';
const prompt = process.argv[2];
if (prompt === 'quick') { process.stdout.write('done'); process.exit(0); }
process.on('SIGTERM', () => {});
writeFileSync('stuck-' + process.pid + '.pid', String(process.pid));
setInterval(() => {}, 1000);
`;

function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = async () => {
      if (await check()) return resolve();
      if (Date.now() > deadline) return reject(new Error('timed out waiting'));
      setTimeout(poll, 50);
    };
    void poll();
  });
}

describe('interrupting agentv eval', () => {
  it('Ctrl-C twice exits 130 at once, keeps the finished results and kills the stuck agent', async () => {
    project = await createProject({
      'agent.mjs': AGENT,
      '.agentv/targets.yaml': `targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs {PROMPT}
    max_retries: 0
`,
      'evals/e.yaml': `evalcases:
  - id: quick
    input_messages: [{ role: user, content: quick }]
    evaluators: [{ type: contains, value: done }]
  - id: stuck
    input_messages: [{ role: user, content: stuck }]
    evaluators: [{ type: contains, value: done }]
`,
    });
    const dir = project.dir;
    const child = spawn(
      process.execPath,
      [BIN, 'eval', 'evals/e.yaml', '--out', 'out.jsonl', '--workers', '2'],
      {
        cwd: dir,
        env: { ...process.env, CI: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    let stuckPid = 0;
    await waitFor(async () => {
      const { readdir } = await import('node:fs/promises');
      const file = (await readdir(dir)).find((name) => name.startsWith('stuck-'));
      if (!file) return false;
      stuckPid = Number(await readFile(project!.file(file), 'utf8'));
      return stuckPid > 0;
    });
    await waitFor(async () =>
      (await readFile(project!.file('out.jsonl'), 'utf8').catch(() => '')).includes('quick'),
    );
    child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 100));
    child.kill('SIGINT');
    expect(await closed).toBe(130);
    // SIGKILL is immediate; allow the kernel a moment to tear the process down.
    await waitFor(async () => !processAlive(stuckPid), 3000);
    const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(lines.map((line) => line.eval_id)).toEqual(['quick']);
  });
});
