import { randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, posix, relative, sep } from 'node:path';
import {
  ProviderError,
  type ProviderRequest,
  SANDBOX_WORKSPACE,
  type Sandbox,
} from '@agentv/core/provider-utils';

/**
 * One call's folder in a sandbox's exchange folder: AgentV writes the call's
 * files (`{PROMPT_FILE}`, `{INPUT_FILE}`, copies of the case's files) at
 * `hostDir` and the command reads them at `path`; `{OUTPUT_FILE}` comes back
 * the same way, without a call to the engine.
 */
export interface SandboxCallDir {
  hostDir: string;
  path: string;
  /** Where host file `hostPath` (in `hostDir`) is inside. */
  inside(hostPath: string): string;
  remove(): Promise<void>;
}

/** Makes a call's folder in `sandbox`'s exchange folder, writable by any user of the image. */
export async function openSandboxCallDir(sandbox: Sandbox): Promise<SandboxCallDir> {
  const exchange = sandbox.exchange;
  if (exchange === undefined) {
    throw new ProviderError(
      'the sandbox has no exchange folder, and this command names files ({PROMPT_FILE}, {INPUT_FILE}, {OUTPUT_FILE}, {FILES})',
      {
        retryable: false,
        hint: 'run the case through the workspace manager (`agentv eval`, runEvaluation), which gives its containers one',
      },
    );
  }
  const name = `call-${randomBytes(6).toString('hex')}`;
  const hostDir = join(exchange.hostPath, name);
  await mkdir(hostDir);
  // The image's user may be anyone (`docker.user`): it must write {OUTPUT_FILE} here.
  await chmod(hostDir, 0o777);
  const path = posix.join(exchange.path, name);
  return {
    hostDir,
    path,
    inside: (hostPath) => posix.join(path, relative(hostDir, hostPath).split(sep).join('/')),
    remove: () => rm(hostDir, { recursive: true, force: true }),
  };
}

/**
 * `request` as a process in the sandbox sees it: the workspace at
 * `/workspace`, and the case's files (guideline and input files) copied into
 * the call's folder under their absolute path (`<call>/files/home/me/x.md`).
 */
export async function requestInSandbox(
  request: ProviderRequest,
  call: SandboxCallDir | undefined,
): Promise<ProviderRequest> {
  const copies = new Map<string, string>();
  const copy = async (file: string) => {
    if (call === undefined) return file;
    let inside = copies.get(file);
    if (inside === undefined) {
      const target = join(call.hostDir, 'files', isAbsolute(file) ? file.slice(1) : file);
      await mkdir(dirname(target), { recursive: true });
      await copyFile(file, target).catch((error: Error) => {
        throw new ProviderError(`could not copy ${file} for the container: ${error.message}`, {
          retryable: false,
          cause: error,
        });
      });
      inside = call.inside(target);
      copies.set(file, inside);
    }
    return inside;
  };
  const guidelineFiles = await Promise.all(request.guidelineFiles.map(copy));
  const inputFiles = await Promise.all(request.inputFiles.map(copy));
  return { ...request, workspace: SANDBOX_WORKSPACE, guidelineFiles, inputFiles };
}

/** Lets the image's user read what AgentV wrote in the call's folder (written 0600). */
export async function shareCallFiles(call: SandboxCallDir): Promise<void> {
  for (const entry of await readdir(call.hostDir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    await chmod(path, entry.isDirectory() ? 0o755 : 0o644);
  }
}

/** A target's `cwd` inside the container: relative ones under `/workspace`, absolute ones as written. */
export function sandboxCwd(cwd: string): string {
  return posix.isAbsolute(cwd) ? cwd : posix.join(SANDBOX_WORKSPACE, cwd);
}
