import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, openSync } from 'node:fs';
import {
  chmod,
  copyFile,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The image every test container runs: busybox (static) and empty /workspace, /tmp. */
export const TEST_IMAGE = 'agentv-test:busybox';
const BUSYBOX = '/bin/busybox';
const APPLETS = [
  'sh',
  'sleep',
  'cat',
  'echo',
  'kill',
  'ls',
  'touch',
  'wget',
  'head',
  'dd',
  'id',
  'rm',
  'mkdir',
  'true',
  'false',
  'env',
  'pwd',
  'yes',
  'tail',
  'tr',
  'grep',
  'ps',
];

/** A Docker engine of the tests' own: its data, state and socket under `dir`. */
export interface TestEngine {
  dir: string;
  /** `unix://<dir>/docker.sock` */
  host: string;
  stop(): Promise<void>;
}

/**
 * Why the docker tests cannot run here, or undefined when they can: they need
 * root (dockerd), `dockerd`, `docker` and a static busybox.
 */
export function missingForEngine(): string | undefined {
  if (process.getuid?.() !== 0) return 'they need root to start dockerd';
  for (const [file, pkg] of [
    ['dockerd', 'docker.io'],
    ['docker', 'docker.io'],
  ] as const) {
    if (!onPath(file)) return `${file} is missing (apt-get install ${pkg})`;
  }
  if (!existsSync(BUSYBOX)) return `${BUSYBOX} is missing (apt-get install busybox-static)`;
  return undefined;
}

/**
 * Starts `dockerd` without a bridge or firewall rules, on its own data root,
 * exec root, pidfile, socket and containerd namespace, and waits (up to a
 * minute) until it answers.
 */
export async function startTestEngine(): Promise<TestEngine> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'agentv-dockerd-'));
  const socket = path.join(dir, 'docker.sock');
  const host = `unix://${socket}`;
  const namespace = `agentv-test-${process.pid}`;
  const log = openSync(path.join(dir, 'dockerd.log'), 'a');
  const child: ChildProcess = spawn(
    'dockerd',
    [
      '--bridge=none',
      '--iptables=false',
      '--ip6tables=false',
      '--data-root',
      path.join(dir, 'data'),
      '--exec-root',
      path.join(dir, 'exec'),
      '--pidfile',
      path.join(dir, 'dockerd.pid'),
      '-H',
      host,
      '--containerd-namespace',
      namespace,
      '--containerd-plugins-namespace',
      `${namespace}-plugins`,
    ],
    { stdio: ['ignore', log, log], detached: true },
  );
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const stop = async () => {
    if (!exited) {
      child.kill('SIGTERM');
      const deadline = Date.now() + 30_000;
      while (!exited && Date.now() < deadline) await sleep(100);
      if (!exited) child.kill('SIGKILL');
    }
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) {
      const text = await readFile(path.join(dir, 'dockerd.log'), 'utf8').catch(() => '');
      await stop();
      throw new Error(`dockerd exited while starting:\n${text.split('\n').slice(-15).join('\n')}`);
    }
    if (existsSync(socket) && dockerAnswers(host)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error('dockerd did not answer within a minute');
    }
    await sleep(200);
  }
  return { dir, host, stop };
}

/** Imports `TEST_IMAGE` from a root file system of busybox applets (`docker import`). */
export async function importTestImage(engine: TestEngine): Promise<void> {
  await importRootfs(engine, TEST_IMAGE, {});
}

/**
 * Imports an image tagged `tag` holding busybox, this machine's `node` (the
 * binary running this process, at `/usr/local/bin/node`) and every library
 * `ldd` lists for it at the same paths, the dynamic loader included. Its
 * `/etc/os-release` says `ID=agentv-test`, a file no host has.
 */
export async function importNodeImage(engine: TestEngine, tag: string): Promise<void> {
  await importRootfs(engine, tag, { node: process.execPath });
}

/** The files `ldd <binary>` lists (libraries and the loader), as absolute paths. */
export function sharedLibraries(binary: string): string[] {
  const listing = execFileSync('ldd', [binary], { encoding: 'utf8' });
  const files = new Set<string>();
  for (const line of listing.split('\n')) {
    // "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)" or "/lib64/ld-linux-x86-64.so.2 (0x…)"
    const match = /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line);
    if (match?.[1]) files.add(match[1]);
  }
  return [...files];
}

async function importRootfs(
  engine: TestEngine,
  tag: string,
  options: { node?: string },
): Promise<void> {
  const root = await mkdtemp(path.join(engine.dir, 'rootfs-'));
  for (const folder of ['bin', 'tmp', 'workspace', 'etc', 'proc', 'sys', 'dev']) {
    await mkdir(path.join(root, folder), { recursive: true });
  }
  await chmod(path.join(root, 'tmp'), 0o1777);
  await copyFile(BUSYBOX, path.join(root, 'bin', 'busybox'));
  await chmod(path.join(root, 'bin', 'busybox'), 0o755);
  for (const applet of APPLETS) await symlink('busybox', path.join(root, 'bin', applet));
  await writeFile(
    path.join(root, 'etc', 'passwd'),
    'root:x:0:0:root:/:/bin/sh\nagent:x:1000:1000:agent:/tmp:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n',
  );
  await writeFile(path.join(root, 'etc', 'group'), 'root:x:0:\nagent:x:1000:\nnogroup:x:65534:\n');
  await writeFile(
    path.join(root, 'etc', 'os-release'),
    'ID=agentv-test\nNAME="AgentV test image"\n',
  );
  let envPath = '/bin';
  if (options.node !== undefined) {
    await mkdir(path.join(root, 'usr', 'local', 'bin'), { recursive: true });
    await copyFile(options.node, path.join(root, 'usr', 'local', 'bin', 'node'));
    await chmod(path.join(root, 'usr', 'local', 'bin', 'node'), 0o755);
    for (const library of sharedLibraries(options.node)) {
      await mkdir(path.join(root, path.dirname(library)), { recursive: true });
      // copyFile follows symlinks: the library itself lands at the path the loader asks for.
      await copyFile(library, path.join(root, library));
    }
    envPath = '/usr/local/bin:/bin';
  }
  const tarball = `${root}.tar`;
  execFileSync('tar', ['-C', root, '-cf', tarball, '.']);
  await rm(root, { recursive: true, force: true });
  try {
    execFileSync('docker', ['import', '--change', `ENV PATH=${envPath}`, tarball, tag], {
      env: { ...process.env, DOCKER_HOST: engine.host },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } finally {
    await rm(tarball, { force: true });
  }
}

function dockerAnswers(host: string): boolean {
  try {
    execFileSync('docker', ['version', '--format', '{{.Server.Version}}'], {
      env: { ...process.env, DOCKER_HOST: host },
      stdio: 'ignore',
      timeout: 10_000,
    });
    return true;
  } catch {
    return false;
  }
}

function onPath(file: string): boolean {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((folder) => folder !== '' && existsSync(path.join(folder, file)));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
