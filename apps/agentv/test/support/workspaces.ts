import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createProject, type Project } from './project.js';

/**
 * A stand-in coding agent, run for real by the cli target in the case's workspace.
 * Its first argument says what to do; it answers with where it ran as JSON.
 */
export const CODING_AGENT = `
import { appendFileSync, chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
const [task, workspaceArg] = process.argv.slice(2);
const id = process.env.AGENTV_EVAL_ID;
const say = (extra = {}) => process.stdout.write(JSON.stringify({ text: JSON.stringify({
  id, task, cwd: process.cwd(), workspace: process.env.AGENTV_WORKSPACE ?? null, arg: workspaceArg ?? null, ...extra }) }));
if (task === 'flaky' && existsSync(process.env.PID_DIR + '/fail')) {
  process.stderr.write('flaky: failing on purpose');
  process.exit(1);
}
if (task === 'hostile') {
  writeFileSync('x.html', '</script><script>window.pwned = 1</script><img src="x.png" onerror="window.pwned = 2">\\n');
}
if (task === 'fix' || task === 'flaky' || task === 'hostile') writeFileSync('src/sum.js', readFileSync('src/sum.js', 'utf8').replace('a - b', 'a + b'));
if (task === 'marker') {
  writeFileSync(id + '.marker', id);
  // Long enough for the other workers' cases to run at the same time.
  await new Promise((resolve) => setTimeout(resolve, 150));
}
if (task === 'mess') {
  writeFileSync('src/new.js', 'new');
  rmSync('README.md');
  chmodSync('src/sum.js', 0o600);
  writeFileSync('src/sum.js', 'broken');
}
if (task === 'count') {
  appendFileSync('count.txt', 'x');
  say({ count: readFileSync('count.txt', 'utf8').length });
  process.exit(0);
}
if (task === 'slow') {
  writeFileSync(process.env.PID_DIR + '/agent-' + process.pid + '.pid', process.cwd());
  await new Promise(() => setInterval(() => {}, 1000));
}
say({ prepared: existsSync('PREPARED') });
`;

/** A code_judge that passes when the workspace holds no marker but its own case's. */
export const ONLY_MY_MARKER = `
import { readdirSync } from 'node:fs';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const payload = JSON.parse(input);
const { id } = JSON.parse(payload.candidate_answer);
const markers = readdirSync(payload.workspace_path).filter((name) => name.endsWith('.marker'));
const others = markers.filter((name) => name !== id + '.marker');
process.stdout.write(JSON.stringify({
  score: others.length === 0 && markers.length === 1 && process.cwd() === payload.workspace_path ? 1 : 0,
  hits: markers.map((name) => 'saw ' + name),
  misses: others.map((name) => 'another case left ' + name),
}));
`;

/** The template the agent works on: a tiny package with a bug. */
export const TEMPLATE = {
  'evals/app/README.md': '# app\n',
  'evals/app/src/sum.js': 'export const sum = (a, b) => a - b;\n',
};

/** A project with the coding agent, its target (the agent path absolute) and `files`. */
export async function workspaceProject(
  files: Record<string, string>,
  targetSettings = '',
): Promise<Project> {
  const project = await createProject({
    'agent.mjs': CODING_AGENT,
    'judges/only-my-marker.mjs': ONLY_MY_MARKER,
    ...TEMPLATE,
    '.agentv/config.yaml': '',
    ...files,
  });
  await writeFile(
    project.file('.agentv/targets.yaml'),
    `targets:
  - name: default
    provider: cli
    command_template: node ${project.file('agent.mjs')} {PROMPT} {WORKSPACE}
    max_retries: 0
${targetSettings}  - name: other
    provider: cli
    command_template: node ${project.file('agent.mjs')} {PROMPT} {WORKSPACE}
    max_retries: 0
`,
  );
  return project;
}

/** An eval case for the coding agent: `task` is its prompt. */
export function agentCase(id: string, task: string, evaluators: string): string {
  return `  - id: ${id}
    input_messages: [{ role: user, content: ${task} }]
    evaluators:
${evaluators
  .trim()
  .split('\n')
  .map((line) => `      ${line}`)
  .join('\n')}
`;
}

/** A hash of every path, mode and content under `dir`: equal before and after means untouched. */
export function treeHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      const full = path.join(folder, name);
      const info = statSync(full);
      hash.update(`${path.relative(dir, full)}\0${info.mode}\0`);
      if (info.isDirectory()) walk(full);
      else hash.update(readFileSync(full));
    }
  };
  walk(dir);
  return hash.digest('hex');
}

/** The agent's answer of a result line, parsed. */
// biome-ignore lint/suspicious/noExplicitAny: the agent's answer is JSON of a known shape
export function answerOf(line: Record<string, any>): Record<string, any> {
  return JSON.parse(line.candidate_answer);
}

/** Folders directly under `dir` (none when it does not exist). */
export function foldersIn(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** Runs git in `cwd` with a fixed identity; returns its stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'T',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'T',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  }).trim();
}
