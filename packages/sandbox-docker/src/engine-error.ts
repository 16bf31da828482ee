import { AgentvError, isAgentvError } from '@agentv/core';
import type { DockerEndpoint } from './docker-endpoint.js';

/**
 * An error of the engine API as a user should read it: an engine that does
 * not answer names the endpoint and where it came from, with what to do.
 */
export function engineError(error: unknown, endpoint: DockerEndpoint, doing: string): Error {
  if (isAgentvError(error)) return error;
  const code = (error as { code?: unknown }).code;
  const where = `${endpoint.host}${endpoint.from === 'default' ? '' : ` (from ${endpoint.from})`}`;
  if (code === 'ENOENT' || code === 'ECONNREFUSED') {
    return new AgentvError(
      `the Docker engine is not running: connect ${code} ${endpoint.socketPath ?? endpoint.host}, while ${doing}`,
      {
        hint: `start it (\`dockerd\` or Docker Desktop), or set DOCKER_HOST to an engine that runs; AgentV looked at ${where}`,
        cause: error,
      },
    );
  }
  if (code === 'EACCES') {
    return new AgentvError(`no permission to use the Docker engine at ${where}, while ${doing}`, {
      hint: 'add your user to the `docker` group (then log in again), or set DOCKER_HOST to an engine you may use',
      cause: error,
    });
  }
  const status = (error as { statusCode?: unknown }).statusCode;
  const reason = engineMessage(error);
  return new AgentvError(
    `the Docker engine refused ${doing}${typeof status === 'number' ? ` (${status})` : ''}: ${reason}`,
    { hint: `check the engine at ${where} (\`docker info\`)`, cause: error },
  );
}

/** The engine's own words for a failed request (`json.message`), else the error's message. */
export function engineMessage(error: unknown): string {
  const json = (error as { json?: unknown }).json;
  if (typeof json === 'object' && json !== null) {
    const message = (json as { message?: unknown }).message;
    if (typeof message === 'string') return message.trim();
  }
  return error instanceof Error ? error.message : String(error);
}

/** True for the engine's 404 (no such image, container). */
export function isNotFound(error: unknown): boolean {
  return (error as { statusCode?: unknown }).statusCode === 404;
}
