// @agentv/sandbox-docker: AgentV's sandbox runtime on a Docker engine.
export type { DockerRuntimeOptions } from './create-docker-runtime.js';
export { createDockerRuntime } from './create-docker-runtime.js';
export type { DockerEndpoint } from './docker-endpoint.js';
export { resolveDockerEndpoint } from './docker-endpoint.js';
export type { DockerRuntime } from './docker-runtime.js';
