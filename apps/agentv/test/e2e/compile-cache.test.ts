import { chmod, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createProject,
  ECHO_AGENT,
  ECHO_TARGETS,
  type Project,
  parseJsonl,
  runAgentv,
} from '../support/project.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

const EVAL = `evalcases:
  - id: greet
    input_messages: [{ role: user, content: hello }]
    evaluators: [{ name: echoed, type: contains, value: hello }]
  - id: part
    input_messages: [{ role: user, content: goodbye }]
    evaluators: [{ name: echoed, type: contains, value: hello }]
`;

async function cacheProject(): Promise<Project> {
  return createProject({
    'agent.mjs': ECHO_AGENT,
    '.agentv/targets.yaml': ECHO_TARGETS,
    'evals/echo.yaml': EVAL,
  });
}

/** Runs the eval with the cache under `cacheHome` (XDG_CACHE_HOME); its results and stderr. */
async function run(project: Project, cacheHome: string, env: Record<string, string> = {}) {
  const result = await runAgentv(['eval', 'evals/echo.yaml', '--out', 'out.jsonl'], project.dir, {
    XDG_CACHE_HOME: cacheHome,
    ...env,
  });
  expect(result.code).toBe(1);
  const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
  return {
    stderr: result.stderr,
    // Cases finish in any order.
    results: lines
      .map((line) => [line.eval_id, line.score, line.candidate_answer])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  };
}

/** Every file under `folder` with its inode and modification time; [] when there is none. */
async function filesUnder(folder: string): Promise<string[]> {
  const names = await readdir(folder, { recursive: true }).catch(() => []);
  const files: string[] = [];
  for (const name of names.sort()) {
    const info = await stat(path.join(folder, name));
    if (info.isFile()) files.push(`${name} ${info.ino} ${info.mtimeMs}`);
  }
  return files;
}

/** A project whose first run wrote the cache: that run, the cache's folder and its files. */
async function firstRun() {
  project = await cacheProject();
  const home = project.file('cache-home');
  const first = await run(project, home);
  const root = path.join(home, 'agentv');
  const [name] = await readdir(root);
  const folder = path.join(root, name!);
  return { home, first, root, name: name!, folder, names: await readdir(folder) };
}

const EXPECTED = [
  ['greet', 1, 'You said: hello'],
  ['part', 0, 'You said: goodbye'],
];

describe('the code cache of the CLI', () => {
  it('is written by the first run into the user cache folder and used by the next', async () => {
    project = await cacheProject();
    const home = project.file('cache-home');
    const first = await run(project, home);
    expect(first.results).toEqual(EXPECTED);
    expect(first.stderr).toBe('');
    const root = path.join(home, 'agentv');
    const [folder, ...others] = await readdir(root);
    expect(others).toEqual([]);
    expect(folder).toMatch(
      new RegExp(`^v8-\\d+\\.\\d+\\.\\d+-node${process.versions.node}-${process.arch}$`),
    );
    expect((await stat(root)).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(root, folder!))).mode & 0o777).toBe(0o700);
    const written = await filesUnder(root);
    expect(written.length).toBeGreaterThan(3);
    for (const file of written) expect(file).toMatch(/\.cjs-\d+-\d+\.v8 /);
    for (const name of await readdir(path.join(root, folder!))) {
      expect((await stat(path.join(root, folder!, name))).mode & 0o777).toBe(0o600);
    }

    // Used, not refused: a refused or missing cache file would be written again (a new file).
    const second = await run(project, home);
    expect(second).toEqual(first);
    expect(await filesUnder(root)).toEqual(written);
  });

  it("is used after a run large enough to change V8's heap settings", async () => {
    // Over 5,000 cases and 384 KiB of dataset: the run lets V8's young generation grow, and V8
    // refuses cached code made under other flags than the next start's.
    const count = 6000;
    const dataset = Array.from(
      { length: count },
      (_, index) => `${JSON.stringify({ id: `c${index}`, question: `question ${index}` })}\n`,
    ).join('');
    project = await createProject({
      'runner.mjs': `import { readFileSync, writeFileSync } from 'node:fs';
const [input, output] = process.argv.slice(2);
const lines = readFileSync(input, 'utf8').split('\\n').filter(Boolean);
writeFileSync(output, lines.map((line) => JSON.stringify({ id: JSON.parse(line).id, text: 'answer' })).join('\\n') + '\\n');
`,
      '.agentv/targets.yaml': `targets:
  - name: default
    provider: cli
    cwd: ..
    provider_batching: true
    command_template: node runner.mjs {INPUT_FILE} {OUTPUT_FILE}
`,
      'evals/large.yaml': `execution:
  evaluators:
    - { name: answered, type: contains, value: answer }
cases: ./cases.jsonl
`,
      'evals/cases.jsonl': dataset,
    });
    const home = project.file('cache-home');
    const large = async () => {
      const result = await runAgentv(
        ['eval', 'evals/large.yaml', '--out', 'out.jsonl'],
        project!.dir,
        {
          XDG_CACHE_HOME: home,
        },
      );
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`${count} passed`);
    };
    await large();
    const written = await filesUnder(home);
    expect(written.length).toBeGreaterThan(3);
    // Refused, the cache would be compiled again and written anew (new files) by every run.
    await large();
    expect(await filesUnder(home)).toEqual(written);
  });

  it('removes the files of an earlier install when it writes the cache of a new one', async () => {
    const { home, first, folder, names } = await firstRun();
    // What an earlier build of the same version left: a chunk that is gone, and a file of a
    // chunk still there but of another size and time.
    const stale = ['cli-gone.cjs-1000-1.v8', names[0]!.replace(/-\d+-\d+\.v8$/, '-1-2.v8')];
    for (const name of stale) await writeFile(path.join(folder, name), 'stale');
    await writeFile(path.join(folder, 'notes.txt'), 'not a cache file');
    // A file of the cache is missing, as after a new install: this run writes it, then tidies.
    await rm(path.join(folder, names[1]!));

    expect(await run(project!, home)).toEqual(first);
    expect((await readdir(folder)).sort()).toEqual([...names, 'notes.txt'].sort());
  });

  it('ignores a damaged cache file silently and writes it again', async () => {
    const { home, first, root, name: folder, names } = await firstRun();
    for (const [index, name] of names.entries()) {
      const file = path.join(root, folder, name);
      const bytes = await readFile(file);
      if (index % 2 === 0) {
        // Damage in the middle of the bytecode, the header left alone.
        for (let at = bytes.length >> 1; at < (bytes.length >> 1) + 64; at++) bytes[at]! ^= 0xff;
        await writeFile(file, bytes);
      } else {
        await writeFile(file, 'not a code cache');
      }
    }
    const damaged = await filesUnder(root);

    const second = await run(project!, home);
    expect(second).toEqual(first);
    const rewritten = await filesUnder(root);
    expect(rewritten.map((file) => file.split(' ')[0])).toEqual(
      names.map((name) => `${folder}/${name}`),
    );
    for (const [index, file] of rewritten.entries()) expect(file).not.toBe(damaged[index]);
    // Written again in full: the next run uses every file as it is.
    expect(await run(project!, home)).toEqual(first);
    expect(await filesUnder(root)).toEqual(rewritten);
  });

  it('runs the same without a cache when its folder cannot be made or is not private', async () => {
    project = await cacheProject();
    const plain = await run(project, project.file('plain'), { AGENTV_COMPILE_CACHE: '0' });
    expect(plain.results).toEqual(EXPECTED);
    expect(plain.stderr).toBe('');

    // `agentv` is a file: no folder can be made there (root included).
    const blocked = project.file('blocked');
    await mkdir(blocked);
    await writeFile(path.join(blocked, 'agentv'), '');
    expect(await run(project, blocked)).toEqual(plain);
    expect(await readdir(blocked)).toEqual(['agentv']);

    // A folder others may write to could hold someone else's bytecode: not used, not written.
    const shared = project.file('shared');
    await mkdir(path.join(shared, 'agentv'), { recursive: true });
    await chmod(path.join(shared, 'agentv'), 0o777);
    expect(await run(project, shared)).toEqual(plain);
    expect(await filesUnder(shared)).toEqual([]);
  });

  it('writes nothing with AGENTV_COMPILE_CACHE=0', async () => {
    project = await cacheProject();
    const home = project.file('cache-home');
    const off = await run(project, home, { AGENTV_COMPILE_CACHE: '0' });
    expect(off.results).toEqual(EXPECTED);
    expect(off.stderr).toBe('');
    expect(await readdir(project.dir)).not.toContain('cache-home');
  });
});
