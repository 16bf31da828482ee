import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** True while `pid` runs; a zombie (exited, not yet reaped) counts as gone. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    // No /proc (macOS): kill(0) succeeding is the best answer available.
    return process.platform !== 'linux';
  }
}

/** A real HTTP server on 127.0.0.1 that records every request path. */
export interface LocalServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Paths requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** Starts a server on a free port of 127.0.0.1 that answers every request with `handle`. */
export async function startLocalServer(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<LocalServer> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(request.url ?? '');
    handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A URL on 127.0.0.1 where nothing listens (a port that was just free). */
export async function refusedUrl(path: string): Promise<string> {
  const server = await startLocalServer(() => {});
  await server.close();
  return `${server.url}${path}`;
}
