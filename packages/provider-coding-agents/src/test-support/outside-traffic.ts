import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * An HTTPS proxy on 127.0.0.1 that forwards nothing: an agent given its address in the standard
 * proxy variables (`env`) asks it for every https host other than loopback, and `hosts` lists
 * what was asked for (`github.com:443`). Each request is refused (403), so nothing leaves the
 * machine. It sees the contacts of programs that honour `HTTPS_PROXY` (curl, git, Rust's
 * reqwest, Bun's fetch), not those of an agent that ignores it. Plain http is left alone: the
 * scripted model servers are http on 127.0.0.1, and an agent that ignored `NO_PROXY` would
 * otherwise send its model requests here.
 */
export interface OutsideTraffic {
  /** `HTTPS_PROXY` (both spellings) pointing here; `NO_PROXY` for loopback. */
  readonly env: Record<string, string>;
  /** What the agents asked for, in order. */
  readonly hosts: string[];
  close(): Promise<void>;
}

export async function watchOutsideTraffic(): Promise<OutsideTraffic> {
  const hosts: string[] = [];
  const server: Server = createServer((request, response) => {
    hosts.push(request.url ?? '');
    response.writeHead(403).end();
  });
  // CONNECT host:port, the way an https request goes through a proxy.
  server.on('connect', (request, socket: Socket) => {
    hosts.push(request.url ?? '');
    socket.on('error', () => {});
    socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const local = '127.0.0.1,localhost,::1';
  return {
    env: {
      HTTPS_PROXY: proxy,
      https_proxy: proxy,
      NO_PROXY: local,
      no_proxy: local,
    },
    hosts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
