import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { describeFetchError, networkFailure } from './describe-fetch-error.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server on 127.0.0.1 that sends headers and half a body, then closes the connection. */
async function resettingServer(): Promise<string> {
  server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
    response.write('{"choices": [');
    setTimeout(() => response.socket?.destroy(), 20);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

async function failureOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('networkFailure', () => {
  it('finds a connection closed while the body was read, below the wrappers', async () => {
    const url = await resettingServer();
    const error = await failureOf(async () => (await fetch(url)).text());
    expect(networkFailure(error)).toBe('UND_ERR_SOCKET (other side closed)');
    // An SDK wrapping fetch's error (its "failed to process successful response") is seen through.
    const wrapped = new Error('Failed to process successful response', { cause: error });
    expect(networkFailure(wrapped)).toBe('UND_ERR_SOCKET (other side closed)');
    expect(describeFetchError(wrapped)).toBe('UND_ERR_SOCKET (other side closed)');
  });

  it('finds a refused connection', async () => {
    const url = await resettingServer();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    server = undefined;
    const error = await failureOf(() => fetch(url));
    expect(networkFailure(error)).toMatch(/^ECONNREFUSED \(/);
  });

  it('says nothing for errors that are not network failures', () => {
    expect(networkFailure(new Error('invalid JSON', { cause: new SyntaxError('x') }))).toBe(
      undefined,
    );
    expect(networkFailure('text')).toBe(undefined);
    const bare = new TypeError('terminated');
    expect(networkFailure(bare)).toBe('terminated');
  });
});
