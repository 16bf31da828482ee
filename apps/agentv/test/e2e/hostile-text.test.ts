import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';
import { runInTerminal } from '../support/run-in-terminal.js';
import { terminalScreen } from '../support/terminal-screen.js';

// Case ids from a downloaded dataset may hold escape sequences, carriage returns, newlines
// and bidi overrides: printed, they must not clear the screen, move the cursor or forge
// lines. Result files keep them as they are.

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

/** Answers its prompt; a prompt with "crash" fails with escape sequences on stderr. */
const AGENT = `
const prompt = process.argv[2];
if (prompt.includes('crash')) {
  process.stderr.write('agent \\u001b[2J\\u001b[Hdied\\r\\n');
  process.exit(3);
}
process.stdout.write('You said: ' + prompt);
`;

// YAML double-quoted escapes: \e is ESC, \u202E a right-to-left override.
const IDS = {
  clear: 'clear\u001b[2J\u001b[Hscreen',
  forge: 'forge\rPASS  all-good',
  lines: 'two\n[9/9] PASS  forged',
  bidi: 'bidi\u202etxt.exe',
};

const EVALS = `execution:
  target: default
evalcases:
  - id: "clear\\e[2J\\e[Hscreen"
    input_messages: [{ role: user, content: hello }]
    evaluators: [{ name: "said\\e[31m", type: contains, value: hello }]
  - id: "forge\\rPASS  all-good"
    input_messages: [{ role: user, content: hello }]
    evaluators: [{ type: contains, value: "absent\\e[1A" }]
  - id: "two\\n[9/9] PASS  forged"
    input_messages: [{ role: user, content: please crash }]
    evaluators: [{ type: contains, value: hello }]
  - id: "bidi\\u202Etxt.exe"
    input_messages: [{ role: user, content: hello }]
    evaluators: [{ type: contains, value: hello }]
`;

async function hostileProject(): Promise<Project> {
  return createProject({
    'agent.mjs': AGENT,
    '.agentv/targets.yaml': `targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs {PROMPT}
    max_retries: 0
`,
    'evals/hostile.yaml': EVALS,
  });
}

/** Control characters left in `text` besides line ends (and the tab). */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('hostile case ids', () => {
  it('are escaped in progress lines, the summary and errors; the result file keeps them', async () => {
    project = await hostileProject();
    const run = await runAgentv(['eval', 'evals/hostile.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stdout).not.toMatch(CONTROLS);
    expect(run.stderr).not.toMatch(CONTROLS);
    const lines = run.stdout.split('\n');
    expect(lines).toContainEqual(
      expect.stringMatching(/^\[\d\/4\] PASS {2}clear\\x1b\[2J\\x1b\[Hscreen {2}1\.000/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^\[\d\/4\] FAIL {2}forge\\rPASS {2}all-good {2}0\.000 {2}.*absent\\u001b\[1A/,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^\[\d\/4\] ERROR two\\n\[9\/9\] PASS {2}forged {2}.*agent \\x1b\[2J\\x1b\[Hdied/,
      ),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^\[\d\/4\] PASS {2}bidi\\u202etxt\.exe/));
    // No line was forged: the fake verdicts stay inside the lines of their cases.
    expect(lines.some((line) => line.startsWith('PASS  all-good'))).toBe(false);
    expect(lines.some((line) => line.startsWith('[9/9]'))).toBe(false);
    // The summary names the failed and errored cases escaped too.
    expect(run.stdout).toContain('  FAIL   forge\\rPASS  all-good (default) 0.000');
    expect(run.stdout).toContain('  ERROR  two\\n[9/9] PASS  forged (default)');

    const ids = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8')).map(
      (line) => line.eval_id,
    );
    expect(ids.sort()).toEqual(Object.values(IDS).sort());
  });

  it('cannot clear or redraw the live display of a terminal', async () => {
    project = await hostileProject();
    const run = await runInTerminal(
      ['eval', 'evals/hostile.yaml', '--out', 'out.jsonl'],
      project.dir,
    );
    expect(run.code).toBe(2);
    // The replay throws on any escape sequence a progress display does not use (ESC[2J, ESC[H).
    const screen = terminalScreen(run.stdout);
    expect(screen).toContainEqual(expect.stringContaining('clear\\x1b[2J\\x1b[Hscreen'));
    expect(screen).toContainEqual(expect.stringContaining('bidi\\u202etxt.exe'));
    expect(screen.filter((line) => line.includes('PASS  all-good'))).toHaveLength(2);
    expect(screen.some((line) => line.startsWith('PASS  all-good'))).toBe(false);
    expect(screen.some((line) => line.startsWith('[9/9]'))).toBe(false);
  });

  it('are escaped by --list and validate', async () => {
    project = await hostileProject();
    const list = await runAgentv(['eval', 'evals/hostile.yaml', '--list'], project.dir);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toMatch(CONTROLS);
    expect(list.stdout).toContain('evals/hostile.yaml  forge\\rPASS  all-good  default');

    const bad = EVALS.replace('type: contains, value: "absent\\e[1A"', 'type: containz, value: x');
    await writeFile(project.file('evals/bad.yaml'), bad);
    const validate = await runAgentv(['validate', 'evals/bad.yaml'], project.dir);
    expect(validate.code).toBe(1);
    expect(validate.stdout).not.toMatch(CONTROLS);
    expect(validate.stdout).toContain(
      'case "forge\\rPASS  all-good": evaluator "containz" has unknown type "containz"',
    );
  });
});
