import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAgentCli } from '../../../../packages/provider-coding-agents/src/test-support/agent-cli.js';
import { startAnthropicServer } from '../../../../packages/provider-coding-agents/src/test-support/anthropic-server.js';
import { startResponsesServer } from '../../../../packages/provider-coding-agents/src/test-support/responses-server.js';
import { claudeSession, codexSession } from '../support/recorded-sessions.js';

let codex: string | undefined;
let claude: string | undefined;
let scratch: string;

beforeAll(async () => {
  [codex, claude] = await Promise.all([ensureAgentCli('codex'), ensureAgentCli('claude-code')]);
  scratch = await mkdtemp(path.join(tmpdir(), 'agentv-sessions-'));
}, 600_000);

afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('record', { timeout: 300_000 }, () => {
  it('records', async () => {
    const work = path.join(scratch, 'work');
    await mkdir(work);
    await writeFile(path.join(work, 'notes.txt'), 'hello\n');
    const responses = await startResponsesServer(() => [
      { shell: 'cat notes.txt' },
      { answer: 'The notes say hello.' },
    ]);
    const codexFile = await codexSession({
      codex: codex!,
      baseUrl: responses.baseUrl,
      home: path.join(scratch, 'codex-home'),
      workdir: work,
      prompt: 'What do the notes say?',
    });
    await responses.close();
    const anthropic = await startAnthropicServer([
      { tools: [{ tool: 'Read', input: { file_path: path.join(work, 'notes.txt') } }] },
      { text: 'The notes say hello.' },
    ]);
    const claudeFile = await claudeSession({
      claude: claude!,
      baseUrl: anthropic.origin,
      home: path.join(scratch, 'claude-home'),
      workdir: work,
      prompt: 'What do the notes say?',
    });
    await anthropic.close();
    await cp(codexFile, '/tmp/h38/codex.jsonl');
    await cp(claudeFile, '/tmp/h38/claude.jsonl');
    expect((await readFile(codexFile, 'utf8')).length).toBeGreaterThan(0);
  });
});
