// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is targets-file syntax, not a JS template
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type LocalServer, startLocalServer } from '../support/processes.js';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';
import { runInTerminal } from '../support/run-in-terminal.js';

// Issue 16, the remaining untrue or unhelpful messages: each test makes the mistake with
// the built CLI, as a user would, and asserts the exact message.

let project: Project | undefined;
let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  await project?.cleanup();
  project = undefined;
  server = undefined;
});

const TARGETS = `targets:
  - name: default
    provider: cli
    cwd: ..
    command_template: node agent.mjs {PROMPT}
`;

const ECHO = "console.log('said ' + process.argv[2]);\n";

const evalFile = (execution: string, evaluator = '{ name: said, type: contains, value: said }') =>
  `${execution}evalcases:
  - id: refund-001
    input_messages:
      - role: user
        content: I want a refund
    evaluators:
      - ${evaluator}
`;

async function both(args: string[]): Promise<{ eval: string; validate: string }> {
  const ran = await runAgentv(['eval', ...args, '--out', 'out.jsonl'], project!.dir);
  const checked = await runAgentv(['validate', ...args], project!.dir);
  expect(ran.code).toBe(2);
  expect(checked.code).toBe(1);
  return { eval: ran.stderr, validate: checked.stdout };
}

describe('an unknown target', () => {
  it("points at the name in the file's execution.target, at line:column, in eval and validate", async () => {
    project = await createProject({
      'agent.mjs': ECHO,
      '.agentv/targets.yaml': TARGETS,
      'evals/st.yaml': evalFile('execution:\n  target: staging\n'),
    });
    const line =
      'error: evals/st.yaml:2:11: case "refund-001": unknown target "staging" (hint: targets in .agentv/targets.yaml: default)';
    const { eval: ran, validate } = await both(['evals/st.yaml']);
    expect(ran).toBe(`${line}\n`);
    expect(validate).toContain(`${line}\n`);
  });

  it('points at the name in a list of execution.targets', async () => {
    project = await createProject({
      'agent.mjs': ECHO,
      '.agentv/targets.yaml': TARGETS,
      'evals/st.yaml': evalFile('execution:\n  targets: [default, stagin]\n'),
    });
    const line =
      'error: evals/st.yaml:2:22: case "refund-001": unknown target "stagin" (hint: targets in .agentv/targets.yaml: default)';
    const { eval: ran, validate } = await both(['evals/st.yaml']);
    expect(ran).toBe(`${line}\n`);
    expect(validate).toContain(`${line}\n`);
  });

  it('an inline target clash is located at line:column too', async () => {
    project = await createProject({
      'agent.mjs': ECHO,
      '.agentv/targets.yaml': TARGETS,
      'evals/small.yaml': `targets:
  - name: default
    provider: cli
    command_template: node ../agent.mjs {PROMPT}
${evalFile('')}`,
    });
    const line =
      'error: evals/small.yaml:2:5: target "default": defined twice: inline in evals/small.yaml:2:5 and in .agentv/targets.yaml:2:5';
    const ran = await runAgentv(['eval', 'evals/small.yaml'], project.dir);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(line);
    const checked = await runAgentv(['validate', 'evals/small.yaml'], project.dir);
    expect(checked.stdout).toContain(line);
  });
});

describe('a misspelt evaluator option', () => {
  it('is an error with a did-you-mean at its line, in eval and validate: ignoring it would change the grade', async () => {
    project = await createProject({
      'agent.mjs': ECHO,
      '.agentv/targets.yaml': TARGETS,
      'evals/typo.yaml': evalFile(
        'execution:\n  target: default\n',
        '{ name: said, type: contains, valeu: said }',
      ),
    });
    const misspelt =
      'error: evals/typo.yaml:9:39: case "refund-001": evaluator "said": unknown key "valeu": ignoring it would change the grade (hint: did you mean "value"?)';
    const missing =
      'error: evals/typo.yaml:9:29: case "refund-001": evaluator "said": "value" is missing; give "value" as a string or a list of strings the answer must contain';
    const { eval: ran, validate } = await both(['evals/typo.yaml']);
    expect(ran).toBe(`${missing}\n${misspelt}\n`);
    expect(validate).toContain(`${missing}\n${misspelt}\n`);
  });
});

describe('an unknown subcommand', () => {
  it('is plain text when piped, with a did-you-mean', async () => {
    const run = await runAgentv(['results', 'merg'], process.cwd(), { NO_COLOR: undefined });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'agentv: unknown command "merg" for "agentv results"\n  hint: did you mean "merge"? available commands: merge; see agentv results --help\n',
    );
  });
});

describe('a command without its files', () => {
  it("says what is missing in AgentV's words, with an example, for grade, compare and results merge", async () => {
    const cwd = process.cwd();
    const messages = await Promise.all(
      [['grade'], ['compare'], ['results', 'merge', '--out', 'all.jsonl']].map(async (args) => {
        const run = await runAgentv(args, cwd);
        expect(run.code).toBe(2);
        return run.stderr;
      }),
    );
    expect(messages).toEqual([
      'agentv: grade needs the result file to grade\n  hint: write agentv grade .agentv/results/eval_….jsonl [eval files], or agentv grade EVAL_FILE for cases whose trace: names a recorded session\n',
      'agentv: compare takes one or two result files, got 0\n  hint: write agentv compare base.jsonl new.jsonl, or agentv compare run.jsonl --base-target A --new-target B\n',
      'agentv: results merge needs the result files to join\n  hint: write e.g. agentv results merge shard-*.jsonl --out results.jsonl\n',
    ]);
  });
});

describe('colours follow one rule for --help and eval', () => {
  // Colour codes only: the live progress display moves the cursor on a terminal either way.
  const SGR = /\u001b\[[0-9;]*m/;
  const piped = { CI: undefined, TEST: undefined, NO_COLOR: undefined, TERM: 'xterm-256color' };

  async function coloured(
    args: string[],
    env: Record<string, string | undefined>,
    terminal: boolean,
  ): Promise<boolean> {
    const run = terminal
      ? await runInTerminal(args, project!.dir, { env })
      : await runAgentv(args, project!.dir, { ...piped, ...env });
    return SGR.test(run.stdout);
  }

  it('FORCE_COLOR wins over NO_COLOR and CI; otherwise colours only on a terminal', async () => {
    project = await createProject({
      'agent.mjs': ECHO,
      '.agentv/targets.yaml': TARGETS,
      'evals/c.yaml': evalFile('execution:\n  target: default\n'),
    });
    const cases: [Record<string, string | undefined>, boolean, boolean][] = [
      // env, on a terminal, coloured
      [{}, false, false],
      [{}, true, true],
      [{ NO_COLOR: '1' }, true, false],
      [{ CI: '1' }, true, false],
      [{ FORCE_COLOR: '1' }, false, true],
      [{ FORCE_COLOR: '1', NO_COLOR: '1' }, false, true],
      [{ FORCE_COLOR: '1', NO_COLOR: '1' }, true, true],
      [{ FORCE_COLOR: '1', CI: '1' }, true, true],
      [{ FORCE_COLOR: '0' }, true, false],
    ];
    for (const [env, terminal, expected] of cases) {
      const where = `${JSON.stringify(env)} ${terminal ? 'terminal' : 'piped'}`;
      expect(await coloured(['--help'], env, terminal), `--help ${where}`).toBe(expected);
      const run = ['eval', 'evals/c.yaml', '--out', 'out.jsonl'];
      expect(await coloured(run, env, terminal), `eval ${where}`).toBe(expected);
    }
  });
});

describe('numeric flags', () => {
  it('a negative value gets a message about the value, for every numeric flag', async () => {
    const cwd = process.cwd();
    const expectations: [string[], string][] = [
      [
        ['eval', '--agent-timeout', '-1'],
        '--agent-timeout must be a positive number of seconds, got "-1"',
      ],
      [['eval', '--workers', '-2'], '--workers must be an integer >= 1, got "-2"'],
      [['eval', '--max-retries', '-1'], '--max-retries must be an integer >= 0, got "-1"'],
      [['eval', '--repeat', '-3'], '--repeat must be an integer >= 1, got "-3"'],
      [['eval', '--threshold', '-0.5'], '--threshold must be a number between 0 and 1, got "-0.5"'],
      [['grade', 'run.jsonl', '--workers', '-1'], '--workers must be an integer >= 1, got "-1"'],
      [
        ['compare', 'a.jsonl', 'b.jsonl', '--seed', '-1'],
        '--seed must be an integer >= 0, got "-1"',
      ],
    ];
    for (const [args, message] of expectations) {
      const run = await runAgentv(args, cwd);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toBe(`agentv: ${message}\n`);
    }
  });
});

const result = (id: string, target: string, score: number) =>
  JSON.stringify({
    timestamp: '2026-01-01T00:00:00.000Z',
    eval_id: id,
    dataset: 'support',
    target,
    score,
    passed: score >= 0.5,
    hits: [],
    misses: [],
    reasoning: '',
    candidate_answer: '',
    evaluator_results: [],
    attempts: 1,
    duration_ms: 5,
    trace_summary: null,
    eval_file: 'evals/support.yaml',
  });

describe('agentv compare', () => {
  it('with one file of one target says so and how to compare', async () => {
    project = await createProject({ 'base.jsonl': `${result('c1', 'node', 1)}\n` });
    const run = await runAgentv(['compare', 'base.jsonl'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'agentv: base.jsonl holds results of one target only (node), so there is nothing to compare within it\n  hint: pass two result files, e.g. agentv compare base.jsonl new.jsonl (the run before a change and the run after it)\n',
    );
  });

  it('counts in the singular and plural right, in the table and in markdown', async () => {
    project = await createProject({
      'base.jsonl': `${[result('c1', 'a', 1), result('c2', 'a', 0.2), result('c3', 'a', 1)].join('\n')}\n`,
      'new.jsonl': `${[result('c1', 'a', 0), result('c2', 'a', 0.9), result('c3', 'a', 1)].join('\n')}\n`,
    });
    const table = await runAgentv(
      ['compare', 'base.jsonl', 'new.jsonl', '--resamples', '1'],
      project.dir,
    );
    expect(table.stdout).toContain(
      '3 cases in both: 1 win, 1 loss, 1 tie; 1 regressed (passed -> failed), 1 fixed\n',
    );
    expect(table.stdout).toContain('bootstrap: 1 paired resample, seed 1\n');
    expect(table.stdout).toContain('1 case with the same score and verdict is not listed\n');
    const markdown = await runAgentv(
      ['compare', 'base.jsonl', 'new.jsonl', '--resamples', '1', '--format', 'markdown'],
      project.dir,
    );
    expect(markdown.stdout).toContain('| cases | 3 | 3 | 1 win, 1 loss, 1 tie |\n');
    expect(markdown.stdout).toContain('95% CIs from 1 paired bootstrap resample, seed 1.');
  });
});

const HTTP_EVAL = evalFile(
  'execution:\n  target: agent\n',
  '{ name: said, type: contains, value: ok }',
);

describe('http targets', () => {
  it('a URL with credentials is refused up front by validate and eval', async () => {
    project = await createProject({
      '.agentv/targets.yaml': `targets:
  - name: agent
    provider: http
    url: http://user:secret@127.0.0.1:9/chat
    body: { question: "{PROMPT}" }
    response_path: answer
`,
      'evals/h.yaml': HTTP_EVAL,
    });
    const line =
      'error: .agentv/targets.yaml:4:5: target "agent": url: holds a user name or password (user:pass@host), which a request cannot send in its URL (hint: remove them from the URL and send them in a header, e.g. headers: { Authorization: "Basic ${{ API_BASIC_AUTH }}" } with API_BASIC_AUTH the base64 of user:pass, set in .env)';
    const { eval: ran, validate } = await both(['evals/h.yaml']);
    expect(ran).toBe(`${line}\n`);
    expect(validate).toContain(`${line}\n`);
    expect(ran + validate).not.toContain('secret');
  });

  it('a 429 after the last retry gets a hint naming what decides: the flag when given', async () => {
    server = await startLocalServer((request: IncomingMessage, response: ServerResponse) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(429, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: 'slow down' }));
      });
    });
    project = await createProject({
      '.agentv/targets.yaml': `targets:
  - name: agent
    provider: http
    url: ${server.url}/chat
    body: { question: "{PROMPT}" }
    response_path: answer
    workers: 3
`,
      'evals/h.yaml': HTTP_EVAL,
    });
    const run = await runAgentv(
      ['eval', 'evals/h.yaml', '--out', 'out.jsonl', '--max-retries', '0'],
      project.dir,
    );
    expect(run.code).toBe(2);
    const [line] = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(line!.error).toBe(
      `http target "agent": POST ${server.url}/chat returned HTTP 429: {"error":"slow down"} (hint: the service is limiting the request rate: send fewer requests at once (set a lower \`workers\` on target "agent" (now 3)), or retry more (raise --max-retries (now 0)); each retry waits longer)`,
    );
  });
});

describe('library errors name options, not flags', () => {
  it('evaluate() says target, not --target', async () => {
    project = await createProject({
      'agent.mjs': ECHO,
      '.agentv/targets.yaml': TARGETS,
      'evals/e.yaml': evalFile('execution:\n  target: default\n'),
      'run.mjs': `
import { evaluate, createProviderRegistry, formatIssue } from '@agentv/core';
try {
  await evaluate({ evalFiles: ['evals/e.yaml'], providers: createProviderRegistry([]), target: 'nope' });
} catch (error) {
  for (const issue of error.issues) console.log(formatIssue(issue));
}
`,
    });
    const { spawnSync } = await import('node:child_process');
    const { symlink, mkdir } = await import('node:fs/promises');
    const path = await import('node:path');
    await mkdir(project.file('node_modules/@agentv'), { recursive: true });
    const core = path.resolve(import.meta.dirname, '..', '..', '..', '..', 'packages', 'core');
    await symlink(core, project.file('node_modules/@agentv/core'));
    const run = spawnSync(process.execPath, ['run.mjs'], { cwd: project.dir, encoding: 'utf8' });
    expect(run.stdout).toBe(
      'target: unknown target "nope" (hint: targets in .agentv/targets.yaml: default)\n',
    );
  });
});

describe('did-you-mean', () => {
  it('for an eval file path that does not exist next to one that does', async () => {
    project = await createProject({
      'agent.mjs': ECHO,
      '.agentv/targets.yaml': TARGETS,
      'evals/a.yaml': evalFile('execution:\n  target: default\n'),
    });
    const run = await runAgentv(['eval', 'evals/a.yml'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `agentv: no eval files match "evals/a.yml"\n  hint: did you mean "evals/a.yaml"? check the path; it is relative to ${project.dir}\n`,
    );
  });

  it('for enum-valued flags', async () => {
    const cwd = process.cwd();
    const reducer = await runAgentv(['eval', '--repeat-reducer', 'meen'], cwd);
    expect(reducer.stderr).toBe(
      'agentv: --repeat-reducer meen is not a reducer\n  hint: did you mean "mean"? use one of mean, median, pass_at_k, pass_all, majority\n',
    );
    const format = await runAgentv(['compare', 'a.jsonl', 'b.jsonl', '--format', 'markdwn'], cwd);
    expect(format.stderr).toBe(
      'agentv: --format must be table, json or markdown, got "markdwn"\n  hint: did you mean "markdown"? use --format markdown for a pull-request comment, json for scripts\n',
    );
  });
});

describe('agentv eval --help', () => {
  it('aligns the --cache, --no-cache and --dump-prompts rows, each with its own description', async () => {
    const run = await runAgentv(['eval', '--help'], process.cwd());
    const lines = run.stdout.split('\n');
    const cache = lines.find((l) => l.trimStart().startsWith('--cache'))!;
    const noCache = lines.find((l) => l.trimStart().startsWith('--no-cache'))!;
    expect(cache).toBe(
      '                       --cache    Reuse LLM answers stored in .agentv/cache/ (on unless --no-cache)',
    );
    expect(noCache).toBe(
      '                    --no-cache    Call the model every time, without reading or writing .agentv/cache/',
    );
    // Every description starts right after its flag's column, none with a stray value hint.
    const dumpPrompts = lines.find((l) => l.trimStart().startsWith('--dump-prompts'))!;
    expect(dumpPrompts).toBe(
      "                --dump-prompts    Write each case's exact prompt as JSON to .agentv/prompts/, or to DIR with --dump-prompts DIR",
    );
    expect(run.stdout).not.toContain('(Default:');
    // No line ends in padding (which wraps into ragged rows on a narrow terminal).
    expect(lines.filter((l) => l !== l.trimEnd())).toEqual([]);
  });
});

describe('a target whose program is not installed', () => {
  const MIXED = `${TARGETS}  - name: missing
    provider: cli
    command_template: no-such-agent-xyz {PROMPT}
  - name: unused
    provider: cli
    command_template: other-missing-agent-xyz {PROMPT}
`;

  it('stops a run of several targets up front, naming it, with a hint to leave it out', async () => {
    project = await createProject({
      'agent.mjs': ECHO,
      '.agentv/targets.yaml': MIXED,
      'evals/m.yaml': evalFile('execution:\n  target: default\n'),
    });
    const run = await runAgentv(
      ['eval', 'evals/m.yaml', '--target', 'missing', '--target', 'default', '--out', 'out.jsonl'],
      project.dir,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `error: .agentv/targets.yaml:8:5: target "missing": command_template: the program "no-such-agent-xyz" was not found on PATH (hint: install it or fix its name, or write its path (e.g. "./no-such-agent-xyz", relative to the working directory "${project.file('evals')}"); or run the other targets without it: --target default)\n`,
    );
    // Nothing half-run: no result file.
    await expect(readFile(project.file('out.jsonl'), 'utf8')).rejects.toThrow();
  });

  it('agentv validate warns of every target of targets.yaml whose program is missing, and fails for one a run would use', async () => {
    project = await createProject({
      'agent.mjs': ECHO,
      '.agentv/targets.yaml': MIXED,
      'evals/m.yaml': evalFile('execution:\n  target: default\n'),
    });
    // No eval file uses them: a targets file shared by machines names agents not all have. They
    // are looked for where a run of the eval file with --target would look (its folder).
    const run = await runAgentv(['validate'], project.dir);
    expect(run.code, run.stdout).toBe(0);
    const unused = '; no eval file checked uses this target: a run that uses it stops here';
    expect(run.stdout).toBe(
      `warning: .agentv/targets.yaml:8:5: target "missing": command_template: the program "no-such-agent-xyz" was not found on PATH (hint: install it or fix its name, or write its path (e.g. "./no-such-agent-xyz", relative to the working directory "${project.file('evals')}")${unused})\nwarning: .agentv/targets.yaml:11:5: target "unused": command_template: the program "other-missing-agent-xyz" was not found on PATH (hint: install it or fix its name, or write its path (e.g. "./other-missing-agent-xyz", relative to the working directory "${project.file('evals')}")${unused})\n2 files checked: no errors (2 warnings)\n`,
    );
    // Used by the run validate checks, the same target is the error eval would stop on.
    const used = await runAgentv(['validate', 'evals/m.yaml', '--target', 'missing'], project.dir);
    expect(used.code).toBe(1);
    expect(used.stdout).toContain(
      'error: .agentv/targets.yaml:8:5: target "missing": command_template: the program "no-such-agent-xyz" was not found on PATH',
    );
  });
});
