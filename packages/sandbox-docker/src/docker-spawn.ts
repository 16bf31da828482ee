import { type Duplex, PassThrough, Writable } from 'node:stream';
import type { SandboxOutcome, SandboxProcess, SandboxSpawn } from '@agentv/core/provider-utils';
import { type ExecTarget, killGroup, nextPidFile, wrappedCommand } from './docker-exec.js';

const DEFAULT_KILL_GRACE_MS = 5000;
/** How long a killed process's streams may take to end before they are cut off. */
const CUT_OFF_MS = 5000;

/**
 * Starts a long-lived process in a running container (`docker exec -i`): stdin
 * attached through the hijacked connection, stdout and stderr demultiplexed.
 * Like `runExec`, the process runs under a shell wrapper that records its pid
 * in `/tmp`, so `kill()` stops its whole group with another exec (the engine
 * cannot kill an exec). `done` reports an exit for memory as `oomKilled`.
 */
export async function spawnExec(
  target: ExecTarget,
  request: SandboxSpawn,
): Promise<SandboxProcess> {
  const started = Date.now();
  const pidFile = nextPidFile();
  const exec = await target.container.exec({
    Cmd: wrappedCommand(pidFile, request.command),
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Env: Object.entries(request.env ?? {}).map(([key, value]) => `${key}=${value}`),
    WorkingDir: request.cwd ?? '/workspace',
  });
  const stream = (await exec.start({ hijack: true, stdin: true })) as Duplex;
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.setEncoding('utf8');
  stderr.setEncoding('utf8');
  target.container.modem.demuxStream(stream, stdout, stderr);
  // A write after the process ended must not throw in the caller: it is the end's news.
  stream.on('error', () => {});
  const stdin = new Writable({
    write(chunk, encoding, done) {
      if (stream.writableEnded || stream.destroyed) return done();
      stream.write(chunk, encoding, () => done());
    },
    final(done) {
      if (!stream.writableEnded && !stream.destroyed) stream.end();
      done();
    },
  });

  let exited = false;
  let killed = false;
  const ended = new Promise<void>((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
  const done: Promise<SandboxOutcome> = ended.then(async () => {
    exited = true;
    stdout.end();
    stderr.end();
    const info = await exec.inspect().catch(() => undefined);
    const code = typeof info?.ExitCode === 'number' ? info.ExitCode : undefined;
    const oomKilled =
      !killed && code === 137 && (await target.killedForMemory().catch(() => false));
    const outcome: SandboxOutcome = {
      stdout: '',
      stderr: '',
      timedOut: false,
      aborted: killed,
      oomKilled,
      durationMs: Date.now() - started,
    };
    if (killed) outcome.message = 'killed';
    else if (oomKilled) {
      outcome.message = `out of memory${target.memoryLabel === undefined ? '' : ` (limit ${target.memoryLabel})`}`;
    } else if (code !== undefined) outcome.exitCode = code;
    return outcome;
  });

  let killing: Promise<SandboxOutcome> | undefined;
  const kill = (): Promise<SandboxOutcome> => {
    if (exited) return done;
    killing ??= (async () => {
      killed = true;
      // A container that is gone took the process with it.
      await killGroup(target.container, pidFile).catch(() => {});
      const cut = setTimeout(() => stream.destroy(), CUT_OFF_MS);
      const outcome = await done;
      clearTimeout(cut);
      return outcome;
    })();
    return killing;
  };
  const stop = async (): Promise<SandboxOutcome> => {
    if (exited) return done;
    stdin.end();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), request.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
    });
    const first = await Promise.race([done, late]);
    clearTimeout(timer);
    return first === 'late' ? kill() : first;
  };

  return {
    label: `exec ${exec.id.slice(0, 12)}`,
    stdin,
    stdout,
    stderr,
    get exited() {
      return exited;
    },
    done,
    kill,
    stop,
  };
}
