import type { SandboxImage, SandboxRuntime } from '../sandbox/sandbox-runtime.js';
import type { WorkspaceDocker } from './workspace-config.js';

/** The images of a run's `docker:` blocks, each made ready once. */
export interface SandboxImages {
  readonly runtime: SandboxRuntime;
  /**
   * The image reference `runtime.create` takes for `docker`: prepared on the
   * first call (an existing image checked, a `build` built), the same promise
   * afterwards.
   */
  prepare(docker: WorkspaceDocker, signal?: AbortSignal): Promise<string>;
}

export function createSandboxImages(runtime: SandboxRuntime): SandboxImages {
  const prepared = new Map<string, Promise<string>>();
  return {
    runtime,
    prepare(docker, signal) {
      const image = sandboxImage(docker);
      const key = 'image' in image ? `image:${image.image}` : `build:${image.build}`;
      let ready = prepared.get(key);
      if (ready === undefined) {
        ready = runtime.prepare(image, signal);
        // Awaited by every caller; this only keeps Node from reporting it unhandled.
        ready.catch(() => undefined);
        prepared.set(key, ready);
      }
      return ready;
    },
  };
}

/** The image of a `docker:` block as the runtime takes it. */
export function sandboxImage(docker: WorkspaceDocker): SandboxImage {
  return docker.build !== undefined ? { build: docker.build } : { image: docker.image ?? '' };
}
