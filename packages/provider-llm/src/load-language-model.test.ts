import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ProviderRequest, ResolvedTarget } from '@agentv/core/provider-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LlmKind } from './llm-kinds.js';
import { createLlmProviderFactory } from './llm-provider-factories.js';
import { type LlmServer, startLlmServer } from './test-support/llm-server.js';
import { providerFailure } from './test-support/provider-failure.js';
import { bedrockConverseReply, vertexReply } from './test-support/provider-replies.js';

// The kinds that sign in without an API key: Bedrock with AWS access keys (SigV4), Vertex with a
// project and Google's application default credentials, here from a metadata server on 127.0.0.1.

const SECRET_ACCESS_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const SESSION_TOKEN = 'FwoGZXIvYXdzEBYaDEXAMPLESESSIONTOKEN0123456789';
const ACCESS_TOKEN = 'ya29.local-access-token-0123456789';

const request: ProviderRequest = {
  evalCaseId: 'case-1',
  attempt: 0,
  question: 'What is 2 + 2?',
  chatPrompt: [{ role: 'user', content: 'What is 2 + 2?' }],
  guidelines: '',
  guidelineFiles: [],
  inputFiles: [],
};

function provider(kind: LlmKind, settings: Record<string, unknown>) {
  const target: ResolvedTarget = {
    name: 'cloud',
    provider: kind,
    settings,
    secretValues: [],
    filePath: '/project/.agentv/targets.yaml',
    baseDir: '/project',
  };
  const factory = createLlmProviderFactory(kind);
  expect(factory.validate?.(target)).toEqual([]);
  return factory.create(target, {});
}

/** Sets environment variables for one test; `undefined` unsets one. */
function useEnv(values: Record<string, string | undefined>): () => void {
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  const apply = (entries: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(entries)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(values);
  return () => apply(saved);
}

let server: LlmServer;
let restoreEnv: (() => void) | undefined;
afterEach(async () => {
  restoreEnv?.();
  restoreEnv = undefined;
  await server.close();
});

describe('bedrock with AWS access keys', () => {
  beforeEach(async () => {
    server = await startLlmServer(() => bedrockConverseReply('Four.'));
    // A bearer token in the shell must not replace the keys the target names.
    restoreEnv = useEnv({ AWS_BEARER_TOKEN_BEDROCK: 'shell-bearer-token' });
  });

  const settings = () => ({
    model: 'amazon.nova-lite-v1:0',
    region: 'eu-west-1',
    access_key_id: 'AKIAIOSFODNN7EXAMPLE',
    secret_access_key: SECRET_ACCESS_KEY,
    session_token: SESSION_TOKEN,
    base_url: server.origin,
  });

  it('signs each call with SigV4 for the region and sends the session token', async () => {
    const response = await provider('bedrock', settings()).invoke(request);

    expect(response.text).toBe('Four.');
    const received = server.requests[0]!;
    expect(received.url).toBe('/model/amazon.nova-lite-v1%3A0/converse');
    expect(received.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/eu-west-1\/bedrock\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
    );
    expect(received.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    expect(received.headers['x-amz-security-token']).toBe(SESSION_TOKEN);
    expect(JSON.stringify(received.headers)).not.toContain('shell-bearer-token');
  });

  it('fails a refused signature at once, naming the access keys, with the secrets masked', async () => {
    server.queue({
      status: 403,
      headers: { 'x-amzn-errortype': 'UnrecognizedClientException:http://internal.amazon.com/' },
      body: {
        message: `The security token included in the request is invalid: ${SESSION_TOKEN} ${SECRET_ACCESS_KEY}`,
      },
    });

    const error = await providerFailure(provider('bedrock', settings()).invoke(request));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(
      /^bedrock target "cloud": HTTP 403: The security token included in the request is invalid/,
    );
    expect(error.message).not.toContain(SECRET_ACCESS_KEY);
    expect(error.message).not.toContain(SESSION_TOKEN);
    expect(error.hint).toMatch(
      /^check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY .*: Amazon Bedrock refused the credentials of target "cloud"$/,
    );
  });
});

describe('vertex with a project and Google application default credentials', () => {
  let metadata: LlmServer;
  let gcloudConfig: string;
  beforeEach(async () => {
    server = await startLlmServer(() => vertexReply('Four.'));
    // The metadata server Google's libraries ask for a token on Google Cloud.
    metadata = await startLlmServer((received) => {
      const flavor = { 'metadata-flavor': 'Google' };
      if (received.url === '/computeMetadata/v1/instance') {
        return { status: 200, headers: flavor, body: {} };
      }
      if (received.url.startsWith('/computeMetadata/v1/instance/service-accounts/default/token')) {
        return {
          status: 200,
          headers: flavor,
          body: { access_token: ACCESS_TOKEN, expires_in: 3599, token_type: 'Bearer' },
        };
      }
      return { status: 404, headers: flavor, body: {} };
    });
    // No credentials file or gcloud login of the machine's user may take part.
    gcloudConfig = await mkdtemp(path.join(tmpdir(), 'agentv-gcloud-'));
    restoreEnv = useEnv({
      GCE_METADATA_HOST: new URL(metadata.origin).host,
      CLOUDSDK_CONFIG: gcloudConfig,
      GOOGLE_APPLICATION_CREDENTIALS: undefined,
      // An express-mode key in the shell must not turn the project target into express mode.
      GOOGLE_VERTEX_API_KEY: 'shell-vertex-key',
    });
  });
  afterEach(async () => {
    await metadata.close();
    await rm(gcloudConfig, { recursive: true, force: true });
  });

  const settings = () => ({
    model: 'gemini-2.5-flash',
    project: 'agentv-test',
    location: 'us-central1',
    base_url: `${server.origin}/v1`,
  });

  it("calls the project's generateContent URL with the credentials' access token", async () => {
    const response = await provider('vertex', settings()).invoke(request);

    expect(response.text).toBe('Four.');
    expect(response.usage).toMatchObject({ inputTokens: 12, outputTokens: 5 });
    const received = server.requests[0]!;
    expect(received.url).toBe(
      '/v1/projects/agentv-test/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    expect(received.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(received.headers['x-goog-api-key']).toBeUndefined();
  });

  it('uses a base_url that already names the publisher as written', async () => {
    const base = `${server.origin}/v1beta1/projects/p/locations/global/publishers/google`;
    await provider('vertex', { ...settings(), base_url: base }).invoke(request);

    expect(server.requests[0]!.url).toBe(
      '/v1beta1/projects/p/locations/global/publishers/google/models/gemini-2.5-flash:generateContent',
    );
  });

  it('fails a refused token at once, pointing at the default credentials', async () => {
    server.queue({
      status: 403,
      body: {
        error: {
          code: 403,
          message: "Permission 'aiplatform.endpoints.predict' denied on resource",
          status: 'PERMISSION_DENIED',
        },
      },
    });

    const error = await providerFailure(provider('vertex', settings()).invoke(request));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('HTTP 403: Permission');
    expect(error.hint).toMatch(
      /^check Google's application default credentials \(`gcloud auth application-default login`, or GOOGLE_APPLICATION_CREDENTIALS\) .*: Google Vertex AI refused the credentials of target "cloud"$/,
    );
  });

  it('says how to sign in when there are no default credentials', async () => {
    // Google's libraries' switch for "not on Google Cloud": no metadata server to ask.
    restoreEnv?.();
    restoreEnv = useEnv({
      METADATA_SERVER_DETECTION: 'none',
      CLOUDSDK_CONFIG: gcloudConfig,
      GOOGLE_APPLICATION_CREDENTIALS: undefined,
    });

    const error = await providerFailure(provider('vertex', settings()).invoke(request));
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      'vertex target "cloud": no Google application default credentials were found',
    );
    expect(error.hint).toContain('gcloud auth application-default login');
    expect(error.hint).toContain('api_key');
    expect(server.requests).toHaveLength(0);
  });
});
