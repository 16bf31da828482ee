import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadEvalFile } from './load-eval-file.js';
import {
  brief,
  CASE,
  GRADERS,
  gitRepo,
  load,
  project,
  removeProjects,
  tempFolder,
} from './test-support/workspace-project.js';

afterEach(removeProjects);

describe('loadEvalFile: workspace blocks', () => {
  it('resolves the file block with defaults and shares one object between cases', async () => {
    const dir = await project({
      'evals/fixture/a.txt': 'a',
      'evals/suite.yaml': `${GRADERS}workspace:
  template: ./fixture
  hooks:
    before_each:
      command: npm ci
      timeout_ms: 5000
      cwd: ./scripts
    after_all:
      command: [node, cleanup.mjs, "{{workspace_path}}"]
evalcases:
${CASE('one')}${CASE('two')}`,
    });
    const result = await load(dir);
    expect(result.issues).toEqual([]);
    const [one, two] = result.value!.cases;
    expect(one!.workspace).toEqual({
      template: path.join(dir, 'evals/fixture'),
      isolation: 'per_case',
      mode: 'pooled',
      hooks: {
        beforeEach: { command: 'npm ci', timeoutMs: 5000, cwd: path.join(dir, 'evals/scripts') },
        afterAll: { command: ['node', 'cleanup.mjs', '{{workspace_path}}'] },
      },
      baseDir: path.join(dir, 'evals'),
      key: expect.any(String),
    });
    expect(two!.workspace).toBe(one!.workspace);
  });

  it('merges a case block over the file block key by key and hook by hook', async () => {
    const dir = await project({
      'evals/fixture/a.txt': 'a',
      'evals/other/b.txt': 'b',
      'evals/suite.yaml': `${GRADERS}workspace:
  template: ./fixture
  mode: temp
  hooks:
    before_each: { command: ./setup.sh, timeout_ms: 1000 }
    after_each: { command: ./after.sh }
evalcases:
${CASE('plain')}${CASE('own', '    workspace:\n      isolation: shared\n      hooks:\n        before_each: { timeout_ms: 9000 }\n')}${CASE('same', '    workspace: { isolation: shared, hooks: { before_each: { timeout_ms: 9000 } } }\n')}${CASE('off', '    workspace:\n      template: ./other\n      isolation: per_test\n      hooks: { enabled: false }\n')}`,
    });
    const result = await load(dir);
    expect(result.issues).toEqual([]);
    const [plain, own, same, off] = result.value!.cases;
    expect(own!.workspace).toMatchObject({
      template: path.join(dir, 'evals/fixture'),
      isolation: 'shared',
      mode: 'temp',
      hooks: {
        beforeEach: { command: './setup.sh', timeoutMs: 9000 },
        afterEach: { command: './after.sh' },
      },
    });
    // Equal configurations are one object; the key tells configurations apart.
    expect(same!.workspace).toBe(own!.workspace);
    expect(own!.workspace!.key).not.toBe(plain!.workspace!.key);
    expect(off!.workspace).toMatchObject({
      template: path.join(dir, 'evals/other'),
      isolation: 'per_case',
      mode: 'temp',
      hooks: {},
    });
  });

  it('reads a workspace file, resolving its paths against its own folder', async () => {
    const dir = await project({
      'shared/fixture/a.txt': 'a',
      'shared/workspace.yaml':
        'template: ./fixture\nhooks:\n  before_all: { command: ./prepare.sh, cwd: . }\n',
      'evals/suite.yaml': `${GRADERS}workspace: ../shared/workspace.yaml\nevalcases:\n${CASE('one')}${CASE('two', '    workspace: ../shared/workspace.yaml\n')}`,
    });
    const result = await load(dir);
    expect(result.issues).toEqual([]);
    const [one, two] = result.value!.cases;
    expect(one!.workspace).toMatchObject({
      template: path.join(dir, 'shared/fixture'),
      hooks: { beforeAll: { command: './prepare.sh', cwd: path.join(dir, 'shared') } },
      baseDir: path.join(dir, 'shared'),
    });
    expect(two!.workspace).toBe(one!.workspace);
  });

  it('checks local repositories and their commits with git; base_commit is commit', async () => {
    const dir = await project({
      'evals/repo/README.md': 'hello',
      'evals/plain/x.txt': 'x',
      'evals/suite.yaml': 'placeholder',
    });
    const [first] = gitRepo(path.join(dir, 'evals/repo'));
    await writeFile(
      path.join(dir, 'evals/suite.yaml'),
      `${GRADERS}workspace:
  repos:
    - path: ./checkout
      repo: ./repo
      base_commit: ${first}
      sparse: [src]
    - { path: lib, repo: "https://example.com/lib.git", commit: v1, ancestor: 2 }
evalcases:
${CASE('one')}`,
    );
    const result = await load(dir);
    expect(result.issues).toEqual([]);
    expect(result.value!.cases[0]!.workspace!.repos).toEqual([
      { path: 'checkout', repo: path.join(dir, 'evals/repo'), commit: first, sparse: ['src'] },
      { path: 'lib', repo: 'https://example.com/lib.git', commit: 'v1', ancestor: 2 },
    ]);

    await writeFile(
      path.join(dir, 'evals/suite.yaml'),
      `${GRADERS}workspace:
  repos:
    - { path: a, repo: ./repo, commit: 0000000000000000000000000000000000000bad }
    - { path: b, repo: ./plain }
    - { path: c, repo: ./rpeo }
    - { path: d, repo: ./repo, commit: main, ancestor: 5 }
    - { path: e, repo: ./repo, commit: main, base_commit: ${first} }
evalcases:
${CASE('one')}`,
    );
    const failed = await load(dir);
    expect(failed.issues.map(brief)).toEqual([
      'error 5:40 workspace.repos[0].commit "0000000000000000000000000000000000000bad" is not a commit of ./repo (list the commits with `git -C evals/repo log --oneline`; a branch or tag name works too)',
      'error 6:24 workspace.repos[1].repo "./plain" is not a git repository (no .git in evals/plain) (name the top folder of a git repository, or make one there: `git init && git add -A && git commit -m fixture`; a plain folder is a `template:`)',
      'error 7:24 workspace.repos[2].repo "./rpeo" not found (looked for evals/rpeo) (did you mean "./repo"? relative paths start from evals/)',
      'error 8:40 workspace.repos[3].commit "main" with ancestor 5 is not a commit of ./repo (list the commits with `git -C evals/repo log --oneline`; a branch or tag name works too)',
      'error 9:46 workspace.repos[4].base_commit "' +
        first +
        '" differs from commit "main" (`base_commit` is another name for `commit`: keep one of them)',
    ]);
  });

  it('reports unknown, removed and unsupported keys at their line with a hint', async () => {
    const dir = await project({
      'evals/fixture/a.txt': 'a',
      'evals/suite.yaml': `${GRADERS}workspace:
  templte: ./fixture
  pool: true
  mode: static
  path: /srv/checkout
  docker: { imag: python:3.12 }
  env: { required_commands: [git] }
  repos:
    - { path: r, repo: "https://example.com/r.git", checkout: { ref: main } }
  hooks:
    befor_each: { command: x }
    before_each: { command: "./setup.sh {{workspace_path}}", reset: fast }
    after_each: { command: [node, a.mjs, "{{workspace}}"] }
    after_all: { cwd: . }
evalcases:
${CASE('one')}`,
    });
    const result = await load(dir);
    expect(result.value).toBeUndefined();
    expect(result.issues.map(brief)).toEqual([
      'error 4:3 workspace: unknown key "templte" (did you mean "template"?)',
      'error 5:3 workspace.pool was removed in AgentV 4 (use `mode: pooled` (the default) or `mode: temp`)',
      expect.stringMatching(
        /^error 6:9 workspace\.mode: `static` \(work in a folder as it is\) is not supported \(use `template: <the folder>` instead/,
      ),
      expect.stringMatching(
        /^error 7:3 workspace\.path \(`mode: static`: work in a folder as it is\) is not supported/,
      ),
      'error 8:11 workspace.docker names no image (add `image: <name:tag>` (an image the engine has) or `build: ./Dockerfile`)',
      'error 8:13 workspace.docker: unknown key "imag" (did you mean "image"?)',
      'warning 9:3 workspace.env (preflight checks of required commands) is not supported and is ignored (check what the cases need in a `before_all` hook, e.g. `command: ["python3", "-c", "import numpy"]`)',
      'error 11:53 workspace.repos[0].checkout was removed in AgentV 4 (use `commit:` (or `base_commit:`) and `ancestor:` on the entry itself)',
      'error 13:5 workspace.hooks: unknown key "befor_each" (did you mean "before_each"?)',
      expect.stringMatching(
        /^error 14:29 workspace\.hooks\.before_each\.command: `\{\{…\}\}` cannot be used in a command run by the shell \(a case value would become shell code\) \(read the environment instead, e.g\. `command: \.\/setup\.sh "\$AGENTV_WORKSPACE"`/,
      ),
      'warning 14:62 workspace.hooks.before_each.reset is ignored: AgentV resets a pooled workspace to its pristine state after every case (remove `reset:`; for a fresh copy per case use `mode: temp`, to keep state across cases `isolation: shared`)',
      'error 15:42 workspace.hooks.after_each.command[2]: unknown variable {{workspace}} (the variables are {{workspace_path}}, {{test_id}}, {{eval_run_id}}, {{case_input}}, {{case_metadata}})',
      'error 16:16 workspace.hooks.after_all has no command (add `command: <shell command>` or `command: [program, arg, ...]`)',
    ]);
  });

  it('reports schema problems and a missing or non-folder template', async () => {
    const dir = await project({
      'evals/fixture.txt': 'not a folder',
      'evals/fixtures/a.txt': 'a',
      'evals/suite.yaml': `${GRADERS}workspace:
  template: ./fixture
  isolation: per_suite
evalcases:
${CASE('one', '    workspace: { template: ./fixture.txt, hooks: { before_each: { command: x, timeout_ms: -1 } } }\n')}${CASE('two', '    workspace: { template: ./fixturez }\n')}`,
    });
    const result = await load(dir);
    expect(result.issues.map(brief)).toEqual([
      expect.stringMatching(
        /^error 5:14 workspace\.isolation.*per_suite.*\(use `per_case` \(default\) or `shared`\)$/,
      ),
      expect.stringMatching(
        /^error 9:91 \[one\] workspace\.hooks\.before_each\.timeout_ms.*\(timeout_ms is a whole number/,
      ),
      'error 12:28 [two] workspace.template "./fixturez" not found (looked for evals/fixturez) (did you mean "./fixtures"? relative paths start from evals/)',
    ]);
    await writeFile(
      path.join(dir, 'evals/suite.yaml'),
      `${GRADERS}workspace: { template: ./fixture.txt }\nevalcases:\n${CASE('one')}`,
    );
    expect((await load(dir)).issues.map(brief)).toEqual([
      'error 3:24 workspace.template "./fixture.txt" is a file, not a folder (name a folder: its contents are copied into each workspace)',
    ]);
  });

  it('refuses a template or local repository outside the project, and a wrapped workspace file', async () => {
    const outside = await tempFolder('agentv-outside');
    await mkdir(path.join(outside, 'tpl'));
    const dir = await project({
      'evals/wrapped.yaml': 'workspace:\n  template: ./x\n',
      'evals/suite.yaml': 'placeholder',
    });
    await symlink(path.join(outside, 'tpl'), path.join(dir, 'evals/link'));
    await writeFile(
      path.join(dir, 'evals/suite.yaml'),
      `${GRADERS}workspace: { template: ./link }\nevalcases:\n${CASE('one', '    workspace: ./wrapped.yaml\n')}`,
    );
    const result = await load(dir);
    expect(result.issues.map(brief)).toEqual([
      'error 1:1 a workspace file holds the block itself, not a `workspace:` key (remove the `workspace:` line and unindent what it holds)',
      `error 3:24 workspace.template "./link" resolves to ${path.join(dir, 'evals/link')}, a link to ${path.join(outside, 'tpl')}, outside the project root ${dir} (move the file into the project, or add its folder to \`allowed_file_roots\` in .agentv/config.yaml, e.g. \`allowed_file_roots: [../shared-fixtures]\`, relative to the folder holding .agentv/)`,
    ]);
    expect(result.issues[0]!.file).toBe(path.join('evals', 'wrapped.yaml'));
  });

  it('lets a dataset record bring a template and local repos, never hooks, URLs or workspace files', async () => {
    const dir = await project({
      'evals/fixture/a.txt': 'a',
      'evals/repo/a.txt': 'a',
      'evals/suite.yaml': `${GRADERS}workspace: { mode: temp, hooks: { before_each: { command: ./setup.sh } } }\ncases: ./cases.jsonl\n`,
      'evals/cases.jsonl': `${[
        {
          id: 'ok',
          question: 'q',
          workspace: { template: './fixture', repos: [{ path: 'r', repo: './repo' }] },
        },
        {
          id: 'hook',
          question: 'q',
          workspace: { hooks: { before_all: { command: 'curl evil' } } },
        },
        {
          id: 'url',
          question: 'q',
          workspace: { repos: [{ path: 'r', repo: 'https://example.com/r.git' }] },
        },
        { id: 'file', question: 'q', workspace: './elsewhere.yaml' },
      ]
        .map((record) => JSON.stringify(record))
        .join('\n')}\n`,
    });
    gitRepo(path.join(dir, 'evals/repo'));
    const result = await loadEvalFile('evals/suite.yaml', { cwd: dir, partial: true });
    expect(
      result.issues.map(
        (issue) => `${issue.file}:${issue.line} [${issue.caseId}] ${issue.message}`,
      ),
    ).toEqual([
      'evals/cases.jsonl:2 [hook] workspace.hooks.before_all: a dataset record cannot bring a hook (it would run a command written in the dataset)',
      'evals/cases.jsonl:3 [url] workspace.repos[0].repo "https://example.com/r.git": a dataset record cannot bring a repository URL (it would reach the network from the dataset)',
      'evals/cases.jsonl:4 [file] workspace "./elsewhere.yaml": a dataset record cannot name a workspace file',
    ]);
    const [ok] = result.value!.cases;
    // The record's block is merged over the eval file's, whose hooks it keeps.
    expect(ok!.workspace).toMatchObject({
      template: path.join(dir, 'evals/fixture'),
      repos: [{ path: 'r', repo: path.join(dir, 'evals/repo') }],
      mode: 'temp',
      hooks: { beforeEach: { command: './setup.sh' } },
    });
  });

  it('gives cases no workspace when neither the file nor the case declares one', async () => {
    const dir = await project({ 'evals/suite.yaml': `${GRADERS}evalcases:\n${CASE('one')}` });
    const result = await load(dir);
    expect(result.value!.cases[0]!.workspace).toBeUndefined();
    expect('workspace' in result.value!.cases[0]!).toBe(false);
  });
});
