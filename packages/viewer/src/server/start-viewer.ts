import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { ErrorResponse, RunsResponse } from '../shared/api-types.js';
import { clientAssets } from './client-assets.js';
import { compareSides } from './compare-sides.js';
import { readCase } from './read-case.js';
import { ResultCatalog, type ResultSources } from './result-catalog.js';

export interface ViewerOptions {
  sources: ResultSources;
  /** Folder run keys and file links are relative to (where `agentv view` started). */
  base: string;
  /** Interface to bind. Default 127.0.0.1, open to local pages only; when given, every request needs the token. */
  host?: string;
  /** Port; 0 (default) picks a free one. */
  port?: number;
  /** How often result files are checked for growth, in ms. Default 500. */
  pollMs?: number;
}

export interface Viewer {
  /** The URL to open (with `?token=` when a token is needed). */
  readonly url: string;
  /** The access token, when `host` was given. */
  readonly token: string | undefined;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);
const APP_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const TOKEN_COOKIE = 'agentv_view_token';

/**
 * Serves the viewer: the client and a read-only JSON API over the result files
 * of `sources` (nothing else is read or served). Result files are polled, and
 * open pages are told over server-sent events (`/api/events`) when one changed.
 */
export async function startViewer(options: ViewerOptions): Promise<Viewer> {
  const host = options.host ?? '127.0.0.1';
  // Whoever can reach another interface is not known to be the user: a token is the way in.
  const token = options.host === undefined ? undefined : randomBytes(24).toString('base64url');
  const catalog = new ResultCatalog(options.sources, options.base);
  await catalog.refresh();
  await clientAssets();
  const listeners = new Set<ServerResponse>();

  const server = createServer((request, response) => {
    handle(request, response).catch((error: Error) => {
      if (!response.headersSent) sendJson(response, 500, { error: error.message });
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Referrer-Policy', 'no-referrer');
    response.setHeader('Cache-Control', 'no-store');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return sendJson(response, 405, { error: 'the viewer is read-only: only GET is served' });
    }
    const url = new URL(request.url ?? '/', 'http://viewer.invalid');
    if (token === undefined && !isLocalHost(request.headers.host)) {
      // A page of another site resolving its name to 127.0.0.1 (DNS rebinding) reads nothing.
      return sendJson(response, 403, { error: 'unexpected Host header' });
    }
    if (token !== undefined && !authorised(request, url, token)) {
      return sendJson(response, 401, {
        error: 'a token is needed',
        hint: 'open the URL agentv view printed (it ends with ?token=…)',
      });
    }
    if (token !== undefined && url.searchParams.get('token') === token) {
      response.setHeader(
        'Set-Cookie',
        `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`,
      );
    }
    const route = url.pathname;
    if (route === '/' || route === '/index.html') {
      const assets = await clientAssets();
      return send(response, 200, 'text/html; charset=utf-8', assets.html, APP_CSP);
    }
    if (route === '/app.js') {
      return send(response, 200, 'text/javascript; charset=utf-8', (await clientAssets()).js);
    }
    if (route === '/app.css') {
      return send(response, 200, 'text/css; charset=utf-8', (await clientAssets()).css);
    }
    if (route === '/data/index.js') {
      // The page loads an export's data index first; the live server has none.
      return send(response, 200, 'text/javascript; charset=utf-8', '');
    }
    if (route === '/api/runs') {
      const body: RunsResponse = {
        runs: catalog.all().map((index) => index.summary()),
        sources: [...options.sources.folders, ...options.sources.files].map(
          (source) => path.relative(options.base, path.resolve(source)) || '.',
        ),
      };
      return sendJson(response, 200, body);
    }
    if (route === '/api/run') {
      const index = catalog.get(url.searchParams.get('key') ?? '');
      if (index === undefined) return notFound(response, 'run');
      return send(response, 200, 'application/json; charset=utf-8', index.runJson());
    }
    if (route === '/api/run-text') {
      const index = catalog.get(url.searchParams.get('key') ?? '');
      if (index === undefined) return notFound(response, 'run');
      return send(response, 200, 'application/json; charset=utf-8', index.textJson());
    }
    if (route === '/api/case') {
      const index = catalog.get(url.searchParams.get('key') ?? '');
      const line = Number(url.searchParams.get('line'));
      const found =
        index === undefined || !Number.isInteger(line)
          ? undefined
          : await readCase(index, line, (file) => fileHref(options.base, file));
      if (found === undefined) return notFound(response, 'case');
      return sendJson(response, 200, found);
    }
    if (route === '/api/compare') {
      const base = catalog.get(url.searchParams.get('base') ?? '');
      const next = catalog.get(url.searchParams.get('new') ?? '');
      if (base === undefined || next === undefined) return notFound(response, 'run');
      try {
        const comparison = compareSides(
          { index: base, target: url.searchParams.get('baseTarget') || null },
          { index: next, target: url.searchParams.get('newTarget') || null },
        );
        return sendJson(response, 200, comparison);
      } catch (error) {
        return sendJson(response, 400, { error: (error as Error).message });
      }
    }
    if (route === '/api/events') {
      response.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        Connection: 'keep-alive',
      });
      response.write(': connected\n\n');
      listeners.add(response);
      request.on('close', () => listeners.delete(response));
      return;
    }
    if (route.startsWith('/files/')) {
      let relative: string;
      try {
        relative = decodeURIComponent(route.slice('/files/'.length));
      } catch {
        return notFound(response, 'file');
      }
      const file = await catalog.containedFile(relative);
      if (file === undefined) return notFound(response, 'file');
      response.writeHead(200, {
        // Saved files are shown as text, whatever they hold: never run as a page.
        'Content-Type': 'text/plain; charset=utf-8',
        'Content-Security-Policy': "default-src 'none'; sandbox",
      });
      if (request.method === 'HEAD') return void response.end();
      createReadStream(file).pipe(response);
      return;
    }
    return notFound(response, 'page');
  }

  let refreshing = false;
  const poll = setInterval(async () => {
    if (refreshing) return;
    refreshing = true;
    try {
      const changed = await catalog.refresh();
      if (changed.length > 0) {
        const event = `event: change\ndata: ${JSON.stringify({ keys: changed })}\n\n`;
        for (const listener of listeners) listener.write(event);
      }
    } finally {
      refreshing = false;
    }
  }, options.pollMs ?? 500);
  poll.unref();
  const keepAlive = setInterval(() => {
    for (const listener of listeners) listener.write(': keep-alive\n\n');
  }, 15_000);
  keepAlive.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${shownHost}:${address.port}/${token === undefined ? '' : `?token=${token}`}`;
  return {
    url,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(poll);
        clearInterval(keepAlive);
        for (const listener of listeners) listener.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function isLocalHost(header: string | undefined): boolean {
  if (header === undefined) return false;
  const name = header.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return LOOPBACK.has(name);
}

function authorised(request: IncomingMessage, url: URL, token: string): boolean {
  const given =
    url.searchParams.get('token') ??
    /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ??
    new RegExp(`(?:^|; *)${TOKEN_COOKIE}=([^;]+)`).exec(request.headers.cookie ?? '')?.[1];
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The link to a saved file: `/files/` and its path relative to `base`, each segment encoded. */
function fileHref(base: string, file: string): string {
  return `/files/${path.relative(base, file).split(path.sep).map(encodeURIComponent).join('/')}`;
}

function send(
  response: ServerResponse,
  status: number,
  type: string,
  body: string,
  csp = "default-src 'none'",
): void {
  response.writeHead(status, { 'Content-Type': type, 'Content-Security-Policy': csp });
  response.end(body);
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  send(response, status, 'application/json; charset=utf-8', JSON.stringify(body));
}

function notFound(response: ServerResponse, what: string): void {
  const body: ErrorResponse = {
    error: `no such ${what}`,
    hint: 'the viewer serves only the result files it was started on and the files saved beside them',
  };
  sendJson(response, 404, body);
}
