import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Provider, ProviderError } from '@agentv/core/provider-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliProviderSettings } from './cli-provider-settings.js';
import { type HealthcheckContext, runHealthcheck, withHealthcheck } from './healthcheck.js';
import { createRedactor } from './redact.js';
import { catchError } from './test-support/catch-error.js';
import { fakeAgentCommand } from './test-support/fake-agent-path.js';

const context: HealthcheckContext = {
  cwd: tmpdir(),
  env: { AGENTV_TEST_HEALTH_KEY: 'health-secret-42' },
  redact: createRedactor({ AGENTV_TEST_HEALTH_KEY: 'health-secret-42' }),
  killGraceMs: 100,
};

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/slow') return; // never answers
    response.statusCode = request.url === '/health' ? 204 : 503;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('runHealthcheck over HTTP', () => {
  it('passes on a 2xx status', async () => {
    await expect(runHealthcheck({ type: 'http', url: `${base}/health` }, context)).resolves.toBe(
      undefined,
    );
  });

  it('fails on another status, naming the URL and the status', async () => {
    const error = (await catchError(() =>
      runHealthcheck({ type: 'http', url: `${base}/broken` }, context),
    )) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe(`GET ${base}/broken returned HTTP 503 (expected 2xx)`);
    expect(error.hint).toBe('the service answered but is not healthy; check its logs');
    expect(error.retryable).toBe(false);
  });

  it('fails when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/health`;
    await new Promise((resolve) => closed.close(resolve));
    const error = (await catchError(() => runHealthcheck({ type: 'http', url }, context))) as Error;
    expect(error.message).toMatch(new RegExp(`^GET ${url} failed: ECONNREFUSED`));
  });

  it('fails when the service does not answer in time', async () => {
    const error = (await catchError(() =>
      runHealthcheck({ type: 'http', url: `${base}/slow`, timeoutSeconds: 0.2 }, context),
    )) as Error;
    expect(error.message).toBe(`GET ${base}/slow timed out after 0.2s`);
  });
});

describe('runHealthcheck with a command', () => {
  it('passes on exit code 0', async () => {
    await expect(
      runHealthcheck({ type: 'command', commandTemplate: 'test -d .' }, context),
    ).resolves.toBe(undefined);
  });

  it('fails on a non-zero exit with the end of stderr, secrets masked', async () => {
    const error = (await catchError(() =>
      runHealthcheck(
        {
          type: 'command',
          commandTemplate: `${fakeAgentCommand('fail')} 2 "not ready: $AGENTV_TEST_HEALTH_KEY"`,
        },
        context,
      ),
    )) as ProviderError;
    expect(error.message).toMatch(
      /^command ".*fail 2 .*" exited with code 2; stderr: not ready: \*\*\*$/,
    );
    expect(error.exitCode).toBe(2);
  });

  it('fails when the command outlasts its timeout', async () => {
    const error = (await catchError(() =>
      runHealthcheck({ type: 'command', commandTemplate: 'sleep 5', timeoutSeconds: 0.2 }, context),
    )) as Error;
    expect(error.message).toBe('command "sleep 5" timed out after 0.2s');
  });

  it('runs in its own cwd, and {{X}} stays a literal {X}', async () => {
    await expect(
      runHealthcheck(
        { type: 'command', commandTemplate: `test "$(pwd)" = / && test {{X}} = '{'X'}'`, cwd: '/' },
        context,
      ),
    ).resolves.toBe(undefined);
  });
});

describe('withHealthcheck', () => {
  const provider = {
    specificationVersion: 'v1',
    id: 'cli:agent',
    kind: 'cli',
    targetName: 'agent',
    invoke: async () => ({ output: [] }),
  } as unknown as Provider;
  const settings = (cwd: string, expected: string): CliProviderSettings => ({
    commandTemplate: 'agent',
    filesFormat: '{path}',
    attachmentsFormat: '{path}',
    cwd: '.',
    baseDir: '/',
    env: {},
    verbose: false,
    healthcheck: { type: 'command', commandTemplate: `test "$(pwd)" = "${expected}"`, cwd },
  });
  const redact = createRedactor({});

  it("resolves a relative cwd against the eval file's folder, as AgentV 4.x does", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'agentv-health-'));
    try {
      await mkdir(path.join(dir, 'probe'));
      const evalFile = path.join(dir, 'evals', 'suite.eval.yaml');
      const checked = withHealthcheck(provider, settings('../probe', path.join(dir, 'probe')), {
        redact,
      });
      await expect(checked.healthcheck?.({ onHost: true, evalFile })).resolves.toBe(undefined);
      const wrong = withHealthcheck(provider, settings('missing', ''), { redact });
      const error = (await catchError(() =>
        wrong.healthcheck?.({ onHost: true, evalFile }),
      )) as Error;
      expect(error.message).toBe(
        `the health check's cwd ${path.join(dir, 'evals', 'missing')} does not exist`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
