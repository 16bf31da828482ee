import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkProgram, programOf, scriptOf } from './check-program.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentv-program-'));
  await mkdir(join(dir, 'bin'));
  await writeFile(join(dir, 'agent.sh'), '#!/bin/sh\necho hi\n');
  await chmod(join(dir, 'agent.sh'), 0o755);
  await writeFile(join(dir, 'plain.sh'), 'echo hi\n');
  await writeFile(join(dir, 'agent.mjs'), 'console.log("hi");\n');
  await mkdir(join(dir, 'tool.py'));
  await writeFile(join(dir, 'bin', 'my-agent'), '#!/bin/sh\necho hi\n');
  await chmod(join(dir, 'bin', 'my-agent'), 0o755);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const PATH = process.env.PATH;

describe('programOf', () => {
  it('names the first word after env assignments, and nothing for shell snippets', () => {
    expect(programOf('node agent.mjs --prompt {PROMPT}')).toBe('node');
    expect(programOf('FOO=1 BAR=x node agent.mjs')).toBe('node');
    expect(programOf('  ./agent.sh {PROMPT}')).toBe('./agent.sh');
    for (const snippet of [
      'cd agent && node run.mjs',
      'exec node agent.mjs',
      '. ./env.sh; node agent.mjs',
      'if true; then echo hi; fi',
      '"my agent" {PROMPT}',
      '$AGENT {PROMPT}',
      '{PROMPT_FILE}',
      '~/bin/agent',
      'FOO="a b" node x',
      '(cd x; ./run)',
      'time node x',
    ]) {
      expect(programOf(snippet), snippet).toBeUndefined();
    }
  });
});

describe('checkProgram', () => {
  it('raises no false alarm for valid commands', () => {
    for (const command of [
      'node agent.mjs {PROMPT}',
      'sh -c "echo hi"',
      'FOO=1 node x',
      './agent.sh {PROMPT}',
      'bin/my-agent',
      'my-agent --x',
      'cd sub && ./missing-here-is-fine',
      'exec ./missing',
      'echo hi | cat',
      // Scripts are looked for only where the interpreter surely reads a file by that name.
      'python3 -m missing_module {PROMPT}',
      'node missing-without-extension {PROMPT}',
      'bash missing.sh',
      'node {PROMPT_FILE}',
      'npx tsx missing.ts',
    ]) {
      expect(checkProgram(command, dir, `bin:${PATH}`), command).toBeUndefined();
    }
  });

  it('names a program not on PATH, a missing path and a file that is not executable', () => {
    expect(checkProgram('no-such-agent-xyz {PROMPT}', dir, PATH)).toEqual({
      severity: 'error',
      path: ['command_template'],
      message: 'the program "no-such-agent-xyz" was not found on PATH',
      hint: `install it or fix its name, or write its path (e.g. "./no-such-agent-xyz", relative to the working directory ${JSON.stringify(dir)})`,
    });
    expect(checkProgram('./missing.sh', dir, PATH)).toMatchObject({
      severity: 'error',
      message: `the program "./missing.sh" does not exist (looked for ${join(dir, 'missing.sh')})`,
    });
    expect(checkProgram('./plain.sh {PROMPT}', dir, PATH)).toMatchObject({
      message: `the program "./plain.sh" is not an executable file (${join(dir, 'plain.sh')})`,
      hint: 'make it executable (chmod +x ./plain.sh), or start it through its interpreter (e.g. "sh ./plain.sh" or "node ./plain.sh")',
    });
    expect(checkProgram('my-agent', dir, PATH)?.message).toBe(
      'the program "my-agent" was not found on PATH',
    );
  });
});

describe('the script an interpreter runs', () => {
  it('is named when the command clearly starts an interpreter on a script file', () => {
    expect(scriptOf('node ./agent.mjs {PROMPT}')).toEqual({
      interpreter: 'node',
      script: './agent.mjs',
    });
    expect(scriptOf('FOO=1 /usr/bin/python3 agents/run.py --x')).toEqual({
      interpreter: 'python3',
      script: 'agents/run.py',
    });
    expect(scriptOf('bash ./run.sh')).toEqual({ interpreter: 'bash', script: './run.sh' });
    for (const command of [
      'python3 -u agent.py',
      'bash run.sh',
      'node agent',
      'node "./my agent.mjs"',
      'deno run agent.ts',
      'my-agent agent.py',
    ]) {
      expect(scriptOf(command), command).toBeUndefined();
    }
  });

  it('that does not exist, or is a folder, is an error naming the path looked for', () => {
    expect(checkProgram('node ./nothere.mjs {PROMPT}', dir, PATH)).toEqual({
      severity: 'error',
      path: ['command_template'],
      message: `script file ./nothere.mjs (run by node) not found (resolved to ${join(dir, 'nothere.mjs')})`,
      hint: `fix the path in command_template; it is relative to the target's working directory ${JSON.stringify(dir)}`,
    });
    expect(checkProgram('python3 tool.py', dir, PATH)?.message).toBe(
      `script file tool.py (run by python3) is not a file (${join(dir, 'tool.py')})`,
    );
    expect(checkProgram('sh ./gone.sh {PROMPT}', dir, PATH)?.message).toMatch(
      /^script file \.\/gone\.sh \(run by sh\) not found/,
    );
  });
});
