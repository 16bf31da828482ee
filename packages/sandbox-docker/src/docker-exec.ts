import type { Duplex } from 'node:stream';
import type { SandboxExec, SandboxOutcome } from '@agentv/core/provider-utils';
import type Docker from 'dockerode';
import { OutputBuffer } from './output-buffer.js';

const DEFAULT_MAX_STDOUT = 10 * 1024 * 1024;
const DEFAULT_MAX_STDERR = 1024 * 1024;
/** How long a killed process's output may take to end before it is cut off. */
const KILL_GRACE_MS = 5000;
/**
 * How long the kill inside the container (which first waits up to 5 s for the wrapper's pid)
 * and the process's end may take before the container is killed instead.
 */
const STOP_GRACE_MS = 10_000;

/** What `runExec` needs of its container. */
export interface ExecTarget {
  container: Docker.Container;
  /** Whether the memory ceiling killed a process since it was last asked. */
  killedForMemory(): Promise<boolean>;
  /** The memory limit as written (`512m`), for the message. */
  memoryLabel?: string;
}

let counter = 0;

/** A fresh pid file path in the container's `/tmp` for one exec's wrapper. */
export function nextPidFile(): string {
  return `/tmp/.agentv-exec-${process.pid}-${++counter}`;
}

/** The wrapper that records its pid (the group's leader) in `pidFile` and becomes `argv`. */
export function wrappedCommand(pidFile: string, command: string | readonly string[]): string[] {
  const argv = typeof command === 'string' ? ['/bin/sh', '-c', command] : command;
  return ['/bin/sh', '-c', `echo $$ > ${pidFile}; exec "$@"`, 'agentv-exec', ...argv];
}

/**
 * Runs one process in a running container, as `docker exec` does, with
 * `runProcess`'s guarantees: output kept within limits, a timeout or abort
 * kills the process's group (the exec starts as a session leader; a shell
 * wrapper records its pid in `/tmp`), and a kill for memory is reported.
 * The image needs `/bin/sh`.
 */
export async function runExec(target: ExecTarget, request: SandboxExec): Promise<SandboxOutcome> {
  const started = Date.now();
  const pidFile = nextPidFile();
  const exec = await target.container.exec({
    Cmd: wrappedCommand(pidFile, request.command),
    AttachStdin: request.stdin !== undefined,
    AttachStdout: true,
    AttachStderr: true,
    Env: Object.entries(request.env ?? {}).map(([key, value]) => `${key}=${value}`),
    WorkingDir: request.cwd ?? '/workspace',
  });
  const stream = (await exec.start({ hijack: true, stdin: request.stdin !== undefined })) as Duplex;
  const stdout = new OutputBuffer(request.maxStdoutBytes ?? DEFAULT_MAX_STDOUT, 'head');
  const stderr = new OutputBuffer(request.maxStderrBytes ?? DEFAULT_MAX_STDERR, 'tail');
  target.container.modem.demuxStream(stream, stdout, stderr);
  const ended = new Promise<void>((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
  if (request.stdin !== undefined) stream.end(request.stdin);

  let stop: 'timeout' | 'abort' | undefined;
  let timer: NodeJS.Timeout | undefined;
  const stopped = new Promise<void>((resolve) => {
    if (request.timeoutMs !== undefined) {
      timer = setTimeout(() => {
        stop ??= 'timeout';
        resolve();
      }, request.timeoutMs);
    }
    if (request.signal?.aborted) {
      stop = 'abort';
      resolve();
    }
    request.signal?.addEventListener('abort', () => {
      stop ??= 'abort';
      resolve();
    });
  });
  await Promise.race([ended, stopped]);
  if (timer !== undefined) clearTimeout(timer);
  if (stop !== undefined) {
    let done = false;
    void ended.then(() => {
      done = true;
    });
    // The kill runs inside the container. Where it cannot finish (a fork bomb leaves it no
    // process to start and little CPU), the container itself is killed: the case ends near its
    // timeout, and the workspace's next case gets a new container.
    // A kill the engine answered with an error (the container stopped, or no process could start
    // in it) goes straight to the container kill; an engine that did not answer (it is gone)
    // ends the case at once with its error, as any engine call does.
    let grace: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        killGroup(target.container, pidFile).then(
          () => ended,
          (error: unknown) => {
            if (typeof (error as { statusCode?: unknown }).statusCode === 'number') return;
            // Nothing more will be read: the output's connection must not keep AgentV running.
            stream.destroy();
            throw error;
          },
        ),
        new Promise<void>((resolve) => {
          grace = setTimeout(resolve, STOP_GRACE_MS);
        }),
      ]);
    } finally {
      clearTimeout(grace);
    }
    if (!done) await target.container.kill({ signal: 'SIGKILL' }).catch(() => {});
    // A descendant that left the group may hold the output open: cut it off.
    const cut = setTimeout(() => stream.destroy(), KILL_GRACE_MS);
    await ended;
    clearTimeout(cut);
  }
  // The pid file (a few bytes in the /tmp tmpfs) stays until the container goes: removing it
  // would cost each exec another round trip to the engine.
  const info = await exec.inspect();

  const exitCode =
    stop === undefined && typeof info.ExitCode === 'number' ? info.ExitCode : undefined;
  const oomKilled = stop === undefined && exitCode === 137 && (await target.killedForMemory());
  const outcome: SandboxOutcome = {
    stdout: stdout.text(),
    stderr: stderr.text(),
    timedOut: stop === 'timeout',
    aborted: stop === 'abort',
    oomKilled,
    durationMs: Date.now() - started,
  };
  if (!oomKilled && exitCode !== undefined) outcome.exitCode = exitCode;
  if (oomKilled) {
    outcome.message = `out of memory${target.memoryLabel === undefined ? '' : ` (limit ${target.memoryLabel})`}`;
  } else if (stop === 'timeout') {
    outcome.message = `timed out after ${request.timeoutMs} ms`;
  } else if (stop === 'abort') {
    outcome.message = 'stopped: the run was cancelled';
  }
  return outcome;
}

/**
 * Kills the exec's process group (the wrapper's pid leads it) inside the
 * container, waiting up to 5 s for a wrapper that has not written its pid yet.
 */
export async function killGroup(container: Docker.Container, pidFile: string): Promise<void> {
  const kill = await container.exec({
    Cmd: [
      '/bin/sh',
      '-c',
      `i=0; while [ ! -s ${pidFile} ] && [ $i -lt 5 ]; do sleep 1; i=$((i+1)); done; p=$(cat ${pidFile}) && { kill -KILL -"$p" || kill -KILL "$p"; }`,
    ],
    AttachStdout: true,
    AttachStderr: true,
  });
  const stream = (await kill.start({ hijack: true })) as Duplex;
  stream.resume();
  await new Promise<void>((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
}
