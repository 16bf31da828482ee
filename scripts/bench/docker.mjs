// Budget: one exec through @agentv/sandbox-docker's runtime (`echo hi` in a running container)
// takes <= 1.2x a bare `docker exec` of the same command in the same container (medians of
// interleaved rounds). Needs root, `dockerd` and `/bin/busybox` (it starts an engine of its own,
// without a bridge, on a temp data root); elsewhere the figure is reported as skipped.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDockerRuntime } from '../../packages/sandbox-docker/dist/index.js';
import { interleaved, report, timed } from './support.mjs';

const EXECS = 20;
const BUDGET = 1.2;

if (process.getuid?.() !== 0 || !existsSync('/bin/busybox') || !onPath('dockerd')) {
  report('docker exec through the runtime / bare docker exec', 0, 'x', `<= ${BUDGET}x`, true, {
    skipped: 'needs root, dockerd and /bin/busybox',
  });
  process.exit(0);
}

const dir = mkdtempSync(path.join(tmpdir(), 'agentv-bench-dockerd-'));
const host = `unix://${dir}/docker.sock`;
const env = { ...process.env, DOCKER_HOST: host };
const daemon = spawn(
  'dockerd',
  [
    '--bridge=none',
    '--iptables=false',
    '--ip6tables=false',
    '--data-root',
    `${dir}/data`,
    '--exec-root',
    `${dir}/exec`,
    '--pidfile',
    `${dir}/pid`,
    '-H',
    host,
    '--containerd-namespace',
    `agentv-bench-${process.pid}`,
    '--containerd-plugins-namespace',
    `agentv-bench-${process.pid}-plugins`,
  ],
  { stdio: 'ignore' },
);
let sandbox;
try {
  for (let i = 0; ; i++) {
    try {
      execFileSync('docker', ['version'], { env, stdio: 'ignore' });
      break;
    } catch {
      if (i > 300) throw new Error('dockerd did not answer within a minute');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  const root = path.join(dir, 'rootfs');
  for (const folder of ['bin', 'tmp', 'workspace'])
    mkdirSync(path.join(root, folder), { recursive: true });
  copyFileSync('/bin/busybox', path.join(root, 'bin', 'busybox'));
  for (const applet of ['sh', 'sleep', 'echo', 'kill', 'cat'])
    symlinkSync('busybox', path.join(root, 'bin', applet));
  execFileSync(
    'sh',
    ['-c', `tar -C ${root} -c . | docker import --change 'ENV PATH=/bin' - agentv-bench:busybox`],
    { env, stdio: 'ignore' },
  );

  const runtime = await createDockerRuntime({ env: { DOCKER_HOST: host }, home: dir });
  sandbox = await runtime.create({ image: 'agentv-bench:busybox', runId: 'bench' });
  const perExec = async (run) => {
    const started = performance.now();
    for (let i = 0; i < EXECS; i++) await run();
    return { ms: (performance.now() - started) / EXECS };
  };
  const medians = await interleaved({
    runtime: () =>
      perExec(async () => {
        const outcome = await sandbox.exec({ command: ['echo', 'hi'] });
        if (outcome.stdout !== 'hi\n') throw new Error(`unexpected output ${outcome.stdout}`);
      }),
    bare: () =>
      perExec(async () => {
        const { result } = timed('docker', ['exec', sandbox.id, 'echo', 'hi'], { env });
        if (result.stdout.toString() !== 'hi\n') throw new Error('unexpected output');
      }),
  });
  const ratio = medians.runtime.ms / medians.bare.ms;
  console.log(
    `runtime ${medians.runtime.ms.toFixed(1)} ms, bare docker exec ${medians.bare.ms.toFixed(1)} ms`,
  );
  report(
    'docker exec through the runtime / bare docker exec',
    ratio.toFixed(2),
    'x',
    `<= ${BUDGET}x`,
    ratio <= BUDGET,
    {
      runtimeMs: medians.runtime.ms,
      bareMs: medians.bare.ms,
    },
  );
} finally {
  await sandbox?.destroy().catch(() => undefined);
  daemon.kill('SIGTERM');
  await new Promise((resolve) => daemon.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
}

function onPath(file) {
  return (process.env.PATH ?? '')
    .split(':')
    .some((folder) => folder && existsSync(path.join(folder, file)));
}
