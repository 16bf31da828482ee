/** Where a sandbox mounts the case's workspace, and its processes' working directory. */
export const SANDBOX_WORKSPACE = '/workspace';

/**
 * Where the workspace manager mounts a sandbox's exchange folder: files AgentV
 * hands to a process inside (prompt, input, copies of the case's files) and
 * reads back (`{OUTPUT_FILE}`) without another call to the engine.
 */
export const SANDBOX_EXCHANGE = '/agentv';

/**
 * Where a case's agent, hooks and graders run when its workspace asks for a
 * sandbox: a container engine, a Kubernetes cluster, a hosted sandbox. Core
 * holds only these types; each runtime is a package implementing them
 * (`@agentv/sandbox-docker`), injected by the app like a provider. CONTRIBUTING,
 * "Adding a sandbox runtime", walks through the contract.
 */
export interface SandboxRuntime {
  /** Short name shown in messages, e.g. `docker`. */
  readonly kind: string;
  /**
   * Checks the runtime can be used: the engine answers and `image` (when
   * given) is there. Rejects with an `AgentvError` whose hint says what to do.
   */
  check(image?: SandboxImage): Promise<void>;
  /**
   * Makes the image ready: an existing image is used as it is (never pulled);
   * a `build` is built once per content of its context. Resolves to the
   * reference `create` takes.
   */
  prepare(image: SandboxImage, signal?: AbortSignal): Promise<string>;
  /** Creates and starts a sandbox; rejects with an `AgentvError` naming the image. */
  create(spec: SandboxSpec, signal?: AbortSignal): Promise<Sandbox>;
  /**
   * Removes the sandboxes left by AgentV processes that are gone (killed,
   * crashed) on this host; resolves to how many were removed.
   */
  sweep(): Promise<number>;
}

/** The image of a sandbox: an existing image, or one built from a Dockerfile. */
export type SandboxImage =
  | { image: string }
  | {
      /** Absolute path of a Dockerfile or of a folder holding one (the build context is its folder). */
      build: string;
    };

/** What a sandbox is made from and may use. */
export interface SandboxSpec {
  /** An image reference, as `prepare` returned it. */
  image: string;
  /** Absolute folder of this machine mounted read-write at `/workspace` (the working directory). */
  workspace?: string;
  /** Other folders of this machine, mounted at `target`. */
  mounts?: SandboxMount[];
  /** Memory ceiling in bytes; exceeding it kills the process (`oomKilled`). */
  memoryBytes?: number;
  /** CPU share, e.g. 1.5 for one and a half cores. */
  cpus?: number;
  /** `none` (default: no network at all), `bridge`, or the name of a network. */
  network?: string;
  /** `uid`, `uid:gid` or a user name of the image; default the image's user. */
  user?: string;
  /** Environment of every process in the sandbox (an exec's `env` adds to it). */
  env?: Record<string, string>;
  /** Labels for finding the sandbox again (the runtime adds its own). */
  labels?: Record<string, string>;
  /** Read-only root file system, with `/workspace` and `/tmp` writable. Default true. */
  readOnlyRoot?: boolean;
  /** Most processes at once (a fork bomb fails to fork past it); default the runtime's. */
  pidsLimit?: number;
  /** The run the sandbox belongs to (`agentv.run` label). */
  runId: string;
}

/** A folder of this machine mounted into the sandbox. */
export interface SandboxMount {
  /** Absolute path on this machine. */
  source: string;
  /** Absolute path in the sandbox. */
  target: string;
  readOnly?: boolean;
}

/** One running sandbox. */
export interface Sandbox {
  /** The runtime's id of it (a container id). */
  readonly id: string;
  /** Runs a process inside and waits for it; never rejects for a process that ran. */
  exec(request: SandboxExec): Promise<SandboxOutcome>;
  /**
   * Starts a process inside that keeps running and talks over its pipes (a
   * persistent agent). Rejects with an `AgentvError` when the engine fails.
   * A runtime that cannot stream leaves it out: persistent agents then
   * cannot run in its sandboxes.
   */
  spawn?(request: SandboxSpawn): Promise<SandboxProcess>;
  /** Copies a file or folder of this machine to `target` (an absolute folder) inside. */
  copyIn(source: string, target: string): Promise<void>;
  /** Copies `source` (absolute, inside) into the folder `target` of this machine. */
  copyOut(source: string, target: string): Promise<void>;
  /** Stops and removes the sandbox; safe to call twice. */
  destroy(): Promise<void>;
  /**
   * A folder both sides see, when the sandbox has one (the workspace manager
   * mounts one at `SANDBOX_EXCHANGE`): what is written at `hostPath` is at
   * `path` inside, and back. Without it, files go through `copyIn`/`copyOut`.
   */
  readonly exchange?: { hostPath: string; path: string };
}

/** A process to run in a sandbox. */
export interface SandboxExec {
  /** An argv list (no shell) or a string run by `/bin/sh -c`. */
  command: string | readonly string[];
  /** Absolute working directory inside; default `/workspace`. */
  cwd?: string;
  /** Added to the sandbox's environment for this process. */
  env?: Record<string, string>;
  /** Written to the process's stdin, which is then closed. */
  stdin?: string;
  /** Killed after this long; the outcome has `timedOut`. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Most bytes of stdout kept (the first ones); default 10 MiB. */
  maxStdoutBytes?: number;
  /** Most bytes of stderr kept (the last ones); default 1 MiB. */
  maxStderrBytes?: number;
}

/** A long-lived process to start in a sandbox. */
export interface SandboxSpawn {
  /** An argv list (no shell) or a string run by `/bin/sh -c`. */
  command: string | readonly string[];
  /** Absolute working directory inside; default `/workspace`. */
  cwd?: string;
  /** Added to the sandbox's environment for this process. */
  env?: Record<string, string>;
  /** How long `stop()` waits after EOF on stdin before it kills; default 5 s. */
  killGraceMs?: number;
}

/**
 * A process running in a sandbox with open pipes (stdout and stderr as UTF-8),
 * driven like a child process of this machine.
 */
export interface SandboxProcess {
  /** Names the process in messages (`exec 3f2a…`): its pid inside is not known without another call. */
  readonly label: string;
  readonly stdin: NodeJS.WritableStream;
  readonly stdout: NodeJS.ReadableStream;
  readonly stderr: NodeJS.ReadableStream;
  /** True once the process has ended (or was killed). */
  readonly exited: boolean;
  /**
   * Resolves when the process has ended, with its outcome (`stdout` and
   * `stderr` empty: they were streamed; `oomKilled` when the memory ceiling
   * killed it). Never rejects.
   */
  readonly done: Promise<SandboxOutcome>;
  /** Kills the process and its group inside the sandbox; resolves like `done`. */
  kill(): Promise<SandboxOutcome>;
  /** EOF on stdin, then `kill()` when it has not ended within the grace period. */
  stop(): Promise<SandboxOutcome>;
}

/** How a process in a sandbox ended: `runProcess`'s outcome, plus `oomKilled`. */
export interface SandboxOutcome {
  stdout: string;
  stderr: string;
  /** Undefined when the process was killed (timeout, abort). */
  exitCode?: number;
  timedOut: boolean;
  aborted: boolean;
  /** True when the memory ceiling killed it; `message` says so with the limit. */
  oomKilled: boolean;
  /** Why the process did not end by itself, for a user: "out of memory (limit 512m)". */
  message?: string;
  durationMs: number;
}
