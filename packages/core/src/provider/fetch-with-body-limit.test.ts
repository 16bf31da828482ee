import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchWithBodyLimit } from './fetch-with-body-limit.js';

let server: Server;
let base: string;
let endlessClosed: Promise<void>;

beforeAll(async () => {
  let markClosed: () => void = () => {};
  endlessClosed = new Promise((resolve) => {
    markClosed = resolve;
  });
  server = createServer((request, response) => {
    if (request.url === '/small') {
      response.end('x'.repeat(1000));
      return;
    }
    if (request.url === '/empty') {
      response.writeHead(204).end();
      return;
    }
    // An endless body: a chunk whenever the socket takes one, until the client goes away.
    response.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = 'y'.repeat(16 * 1024);
    const write = () => {
      while (response.write(chunk)) {}
    };
    response.on('drain', write);
    response.on('close', markClosed);
    write();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('fetchWithBodyLimit', () => {
  const limited = fetchWithBodyLimit(64 * 1024, (bytes) => new Error(`too long: ${bytes}`));

  it('reads a body below the limit whole, and passes a response without a body through', async () => {
    const response = await limited(`${base}/small`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('x'.repeat(1000));
    expect((await limited(`${base}/empty`)).status).toBe(204);
  });

  it('fails reading an endless body once it passes the limit, and closes the connection', async () => {
    const response = await limited(`${base}/endless`);
    expect(response.headers.get('content-type')).toBe('text/plain');
    await expect(response.text()).rejects.toThrow(/^too long: \d+$/);
    await endlessClosed;
  });
});
