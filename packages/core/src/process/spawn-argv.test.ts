import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnArgv } from './spawn-argv.js';

const dir = mkdtempSync(join(tmpdir(), 'agentv-spawn-argv-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'tool'), '#!/bin/sh\necho tool\n');
chmodSync(join(dir, 'tool'), 0o755);
writeFileSync(join(dir, 'plain'), 'not a program\n');

const ENTER = 'enter; ';
const env = { PATH: `/usr/bin:/bin:${dir}` };

describe('spawnArgv', () => {
  it('runs a command line through /bin/sh with the text before it', () => {
    expect(spawnArgv('echo "$X"', ENTER, dir, env)).toEqual(['/bin/sh', '-c', 'enter; echo "$X"']);
    expect(spawnArgv('echo', '', dir, env)).toEqual(['/bin/sh', '-c', 'echo']);
  });

  it('hands a command too long to share its argument with the text before it to the shell as one of its own', () => {
    const command = `echo ${'x'.repeat(128 * 1024 - 10)}`;
    expect(spawnArgv(command, ENTER, dir, env)).toEqual([
      '/bin/sh',
      '-c',
      'enter; eval "shift; $1"',
      '/bin/sh',
      command,
    ]);
    expect(spawnArgv(command, '', dir, env)).toEqual(['/bin/sh', '-c', command]);
  });

  it('runs a command handed over as an argument like one run by -c', async () => {
    const command = `: ${'x'.repeat(128 * 1024 - 30)}; echo "[$#] $1"; exit 3`;
    const argv = spawnArgv(command, 'true; ', dir, env);
    expect(argv).toHaveLength(5);
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect({ code, stdout }).toEqual({ code: 3, stdout: '[0] \n' });
  });

  it('runs an argument list as is when there is nothing to put before it', () => {
    expect(spawnArgv(['tool', '$HOME', ';'], '', dir, env)).toEqual(['tool', '$HOME', ';']);
  });

  it('runs a program found on PATH or by its path through the shell, arguments untouched', () => {
    const wrapped = ['/bin/sh', '-c', 'enter; exec "$@"', 'sh'];
    expect(spawnArgv(['tool', '$HOME', ';'], ENTER, '/', env)).toEqual([
      ...wrapped,
      'tool',
      '$HOME',
      ';',
    ]);
    expect(spawnArgv(['./tool'], ENTER, dir, env)).toEqual([...wrapped, './tool']);
    expect(spawnArgv([join(dir, 'tool')], ENTER, '/', {})).toEqual([...wrapped, join(dir, 'tool')]);
  });

  it('leaves a program it cannot find or run as is, so spawning it fails as before', () => {
    expect(spawnArgv(['missing-program'], ENTER, dir, env)).toEqual(['missing-program']);
    expect(spawnArgv(['./plain'], ENTER, dir, env)).toEqual(['./plain']);
    expect(spawnArgv(['tool'], ENTER, dir, { PATH: '/usr/bin:/bin' })).toEqual(['tool']);
    expect(spawnArgv([dir], ENTER, '/', env)).toEqual([dir]);
  });

  it('refuses an empty list', () => {
    expect(() => spawnArgv([], ENTER, dir, env)).toThrow(TypeError);
  });
});
