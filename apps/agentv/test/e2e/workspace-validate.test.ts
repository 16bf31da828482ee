import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, runAgentv } from '../support/project.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

/** Makes `dir` a git repository holding its files in one commit; returns the commit's sha. */
function commitAll(dir: string): string {
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
      cwd: dir,
      encoding: 'utf8',
    }).trim();
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'fixture');
  return git('rev-parse', 'HEAD');
}

/** An agent that leaves a marker when it runs, so a test can tell that nothing ran. */
const AGENT = `
import { writeFileSync } from 'node:fs';
writeFileSync(new URL('./agent-ran', import.meta.url), '');
writeFileSync(process.argv[3], JSON.stringify({ text: 'hi' }));
`;

const TARGETS = `targets:
  - name: default
    provider: cli
    command_template: node ../agent.mjs {PROMPT} {OUTPUT_FILE}
  - name: batch
    provider: cli
    provider_batching: true
    command_template: node ../agent.mjs {INPUT_FILE} {OUTPUT_FILE}
`;

const CASES = `evalcases:
  - id: one
    input_messages: [{ role: user, content: fix the bug }]
  - id: two
    input_messages: [{ role: user, content: fix the bug }]
`;

async function workspaceProject(evalFile: string, more: Record<string, string> = {}) {
  project = await createProject({
    'agent.mjs': AGENT,
    '.agentv/targets.yaml': TARGETS,
    'evals/fixture/src/app.js': 'export const answer = 41;\n',
    'evals/repo/README.md': 'a repository\n',
    'evals/plain/notes.txt': 'not a repository\n',
    'evals/suite.yaml': evalFile,
    ...more,
  });
  return { project, sha: commitAll(project.file('evals/repo')) };
}

describe('agentv validate: workspace blocks', () => {
  it('accepts a template, a local repository at a commit and hooks, without running or copying anything', async () => {
    const { project, sha } = await workspaceProject('placeholder: true\n', {
      // The template's own YAML is the agent's material, not an eval file.
      'evals/fixture/config.yaml': 'name: app\nport: 8080\n',
      'shared/workspace.yaml': `template: ../evals/fixture
hooks:
  before_all: { command: touch ../hook-ran, cwd: . }
`,
    });
    await writeFile(
      project.file('evals/suite.yaml'),
      `execution:
  evaluators: [{ type: contains, value: hi }]
workspace:
  template: ./fixture
  mode: temp
  repos:
    - { path: ./repo, repo: ./repo, base_commit: ${sha}, sparse: [src] }
  hooks:
    before_each: { command: ["touch", "{{workspace_path}}/../hook-ran"], timeout_ms: 5000 }
    after_each: { command: "touch \\"$AGENTV_WORKSPACE/../hook-ran\\"" }
${CASES}  - id: three
    input_messages: [{ role: user, content: fix the bug }]
    workspace: ../shared/workspace.yaml
`,
    );
    const validate = await runAgentv(['validate'], project.dir);
    expect(validate.stdout).toBe('2 files checked: no errors\n');
    expect(validate.code).toBe(0);
    expect(existsSync(project.file('hook-ran'))).toBe(false);
    expect(existsSync(project.file('agent-ran'))).toBe(false);

    // `agentv eval` reads evals/ the same way: the template's YAML is not an eval file.
    const listed = await runAgentv(['eval', '--list'], project.dir);
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('three');
    expect(listed.stdout).not.toContain('config.yaml');
  });

  it('reports each problem at file:line:column with a hint, and eval stops before any agent runs', async () => {
    const { project } = await workspaceProject(`execution:
  evaluators: [{ type: contains, value: hi }]
workspace:
  template: ./fixtures
  isolaton: shared
  repos:
    - { path: ./a, repo: ./repo, commit: 0123456789abcdef0123456789abcdef01234567 }
    - { path: ./b, repo: ./plain }
    - { path: ./c, repo: ./repo, commit: main, base_commit: v2 }
    - { path: ../d, repo: "https://example.com/d.git" }
  hooks:
    before_each: { command: "./setup.sh {{workspace_path}}" }
${CASES}`);
    const expected = [
      'error: evals/suite.yaml:4:13: workspace.template "./fixtures" not found (looked for evals/fixtures) (hint: did you mean "./fixture"? relative paths start from evals/)',
      'error: evals/suite.yaml:5:3: workspace: unknown key "isolaton" (hint: did you mean "isolation"?)',
      'error: evals/suite.yaml:7:42: workspace.repos[0].commit "0123456789abcdef0123456789abcdef01234567" is not a commit of ./repo (hint: list the commits with `git -C evals/repo log --oneline`; a branch or tag name works too)',
      'error: evals/suite.yaml:8:26: workspace.repos[1].repo "./plain" is not a git repository (no .git in evals/plain) (hint: name the top folder of a git repository, or make one there: `git init && git add -A && git commit -m fixture`; a plain folder is a `template:`)',
      'error: evals/suite.yaml:9:48: workspace.repos[2].base_commit "v2" differs from commit "main" (hint: `base_commit` is another name for `commit`: keep one of them)',
      'error: evals/suite.yaml:10:15: workspace.repos[3].path "../d" is outside the workspace (hint: write a path inside the workspace, e.g. `path: ./repo` (`.` for the workspace itself))',
      'error: evals/suite.yaml:12:29: workspace.hooks.before_each.command: `{{…}}` cannot be used in a command run by the shell (a case value would become shell code) (hint: read the environment instead, e.g. `command: ./setup.sh "$AGENTV_WORKSPACE"` (also $AGENTV_EVAL_ID), or write the command as a list, where `{{workspace_path}}` and the other variables are replaced: `command: ["./setup.sh", "{{workspace_path}}"]`)',
    ];
    const validate = await runAgentv(['validate'], project.dir);
    expect(validate.stdout.split('\n')).toEqual([
      ...expected,
      '2 files checked: 1 with errors (7 errors, 0 warnings)',
      '',
    ]);
    expect(validate.code).toBe(1);

    const run = await runAgentv(['eval', 'evals/suite.yaml'], project.dir);
    expect(run.code).toBe(2);
    for (const line of expected) expect(run.stderr).toContain(line);
    expect(existsSync(project.file('agent-ran'))).toBe(false);
  });

  it('refuses a workspace grader in a case without a workspace, before any agent runs', async () => {
    const { project } = await workspaceProject(`evalcases:
  - id: one
    input_messages: [{ role: user, content: fix the bug }]
    evaluators:
      - { type: file, path: NOTES.md, exists: true }
`);
    const expected =
      'error: evals/suite.yaml:5:17: case "one": grader "file" (file) judges the files the agent leaves in its workspace, and the case has no workspace (hint: add a `workspace:` block (`template: ./project` or `repos:`) to the eval file or to the case, so the agent works in a folder the grader can read)';
    const validate = await runAgentv(['validate'], project.dir);
    expect(validate.stdout).toContain(expected);
    expect(validate.code).toBe(1);

    const run = await runAgentv(['eval', 'evals/suite.yaml'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(expected);
    expect(existsSync(project.file('agent-ran'))).toBe(false);
  });

  it('refuses what upstream removed and what AgentV does not support, with the replacement', async () => {
    const { project } = await workspaceProject(`execution:
  evaluators: [{ type: contains, value: hi }]
workspace:
  mode: static
  path: /srv/checkout
  pool: true
  docker: { image: "python:3.12", network: host }
  repos:
    - { path: ./r, source: { type: git, url: "https://example.com/r.git" } }
${CASES}`);
    const validate = await runAgentv(['validate', 'evals/suite.yaml'], project.dir);
    const lines = validate.stdout.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      'error: evals/suite.yaml:4:9: workspace.mode: `static` (work in a folder as it is) is not supported (hint: use `template: <the folder>` instead: AgentV copies it for each worker (`mode: pooled`) or case (`mode: temp`) and resets the copy between cases, so the folder is never changed and each case starts from the same files)',
      'error: evals/suite.yaml:5:3: workspace.path (`mode: static`: work in a folder as it is) is not supported (hint: use `template: <the folder>` instead: AgentV copies it for each worker (`mode: pooled`) or case (`mode: temp`) and resets the copy between cases, so the folder is never changed and each case starts from the same files)',
      'error: evals/suite.yaml:6:3: workspace.pool was removed in AgentV 4 (hint: use `mode: pooled` (the default) or `mode: temp`)',
      'error: evals/suite.yaml:7:44: workspace.docker.network "host" would share this machine\'s network (hint: use `none` (the default), `bridge`, or a network made for the eval (`docker network create`))',
    ]);
    expect(lines).toContain(
      'error: evals/suite.yaml:9:20: workspace.repos[0].source was removed in AgentV 4 (hint: use `repo:` (a URL, GitHub `org/name`, or a local path starting with ./ or /))',
    );
    expect(validate.code).toBe(1);
  });

  it('validate accepts a docker block without an engine; eval checks the engine before any case', async () => {
    const { project } = await workspaceProject(`execution:
  evaluators: [{ type: contains, value: hi }]
workspace:
  docker: { image: "python:3.12", memory: 512m, cpus: 1 }
${CASES}`);
    // An engine that is not there: validate never asks it, eval stops before the first case.
    const env = { DOCKER_HOST: `unix://${project.file('no-engine.sock')}` };
    const validate = await runAgentv(['validate', 'evals/suite.yaml'], project.dir, env);
    expect(validate.stdout).toContain('no errors');
    expect(validate.code).toBe(0);
    const evaluation = await runAgentv(['eval', 'evals/suite.yaml'], project.dir, env);
    expect(evaluation.stderr).toMatch(
      /^agentv: the Docker engine is not running: connect ENOENT .*no-engine\.sock, while removing containers of ended runs\n/,
    );
    expect(evaluation.stderr).toMatch(/hint: start it .*or set DOCKER_HOST/);
    expect(existsSync(project.file('agent-ran'))).toBe(false);
    expect(evaluation.code).not.toBe(0);
  });

  it('places problems of a workspace file in that file', async () => {
    const { project } = await workspaceProject(
      `execution:
  evaluators: [{ type: contains, value: hi }]
workspace: ../shared/workspace.yaml
${CASES}`,
      { 'shared/workspace.yaml': 'template: ./missing\nmode: pooled\nisolation: per_suite\n' },
    );
    const validate = await runAgentv(['validate', 'evals/suite.yaml'], project.dir);
    expect(validate.stdout.split('\n')).toEqual([
      'error: shared/workspace.yaml:3:12: workspace.isolation must be one of "per_case", "per_test", "shared", not "per_suite" (hint: use `per_case` (default) or `shared`)',
      '2 files checked: 1 with errors (1 error, 0 warnings)',
      '',
    ]);
  });

  it('refuses per-case workspaces on a batch target; a shared workspace runs in batches', async () => {
    const evalFile = (isolation: string) => `execution:
  target: batch
  evaluators: [{ type: contains, value: hi }]
workspace: { template: ./fixture, isolation: ${isolation} }
${CASES}`;
    const { project } = await workspaceProject(evalFile('per_case'));
    const refused = await runAgentv(['validate'], project.dir);
    expect(refused.stdout.split('\n')).toEqual([
      'error: evals/suite.yaml:6:5: case "one": target "batch" answers cases in batches (provider_batching: true), and a batch cannot run per-case workspaces (also in case "two") (hint: set `isolation: shared` in the workspace block (one workspace for every case, which the batch works in), or run target "batch" case by case without `provider_batching`)',
      '2 files checked: 1 with errors (1 error, 0 warnings)',
      '',
    ]);
    const run = await runAgentv(['eval', 'evals/suite.yaml'], project.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('a batch cannot run per-case workspaces');
    expect(existsSync(project.file('agent-ran'))).toBe(false);

    await writeFile(project.file('evals/suite.yaml'), evalFile('shared'));
    const shared = await runAgentv(['validate'], project.dir);
    expect(shared.stdout).toBe('2 files checked: no errors\n');
  });

  it('lets dataset records name a template, never a hook or a repository URL', async () => {
    const records = [
      { id: 'ok', question: 'q', workspace: { template: './fixture' } },
      { id: 'hook', question: 'q', workspace: { hooks: { before_each: { command: 'curl x' } } } },
      { id: 'url', question: 'q', workspace: { repos: [{ path: 'r', repo: 'org/name' }] } },
      { id: 'outside', question: 'q', workspace: { template: '/etc' } },
    ];
    const { project } = await workspaceProject(
      'execution:\n  evaluators: [{ type: contains, value: hi }]\ncases: ./cases.jsonl\n',
      { 'evals/cases.jsonl': `${records.map((record) => JSON.stringify(record)).join('\n')}\n` },
    );
    const validate = await runAgentv(['validate'], project.dir);
    expect(validate.stdout.split('\n')).toEqual([
      'error: evals/cases.jsonl:2:1: case "hook": workspace.hooks.before_each: a dataset record cannot bring a hook (it would run a command written in the dataset) (hint: declare hooks in the eval file\'s `workspace:`, which applies to every record)',
      'error: evals/cases.jsonl:3:1: case "url": workspace.repos[0].repo "org/name": a dataset record cannot bring a repository URL (it would reach the network from the dataset) (hint: declare repositories to fetch in the eval file\'s `workspace:`; a record may name a local repository of the project)',
      `error: evals/cases.jsonl:4:1: case "outside": workspace.template "/etc" is outside the project root ${project.dir} (hint: move the file into the project, or add its folder to \`allowed_file_roots\` in .agentv/config.yaml, e.g. \`allowed_file_roots: [../shared-fixtures]\`, relative to the folder holding .agentv/)`,
      '3 files checked: 1 with errors (3 errors, 0 warnings)',
      '',
    ]);
  });
});
