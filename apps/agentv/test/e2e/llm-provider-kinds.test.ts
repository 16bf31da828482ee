// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${{ NAME }} is targets-file syntax, not a JS template
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LLM_PROTOCOLS, type LlmProtocol } from '../support/llm-protocols.js';
import { type LlmRequest, type LlmServer, startLlmServer } from '../support/llm-servers.js';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// The LLM kinds on their own AI SDK packages (Bedrock, Vertex, Mistral, Groq, xAI, DeepSeek,
// OpenRouter), end to end: the built agentv binary against a local server speaking each
// service's protocol, which answers by case: `ok` at once, `busy` with a 429 and Retry-After
// first, `flaky` with a 500 first, `refused` with a 401 that echoes the key.

const API_KEY = 'sk-e2e-provider-kind-0123456789';

let project: Project | undefined;
let servers: LlmServer[] = [];
afterEach(async () => {
  for (const server of servers) await server.close();
  await project?.cleanup();
  project = undefined;
  servers = [];
});

const CASES = ['ok', 'busy', 'flaky', 'refused'];

const evalFile = `execution:
  target: llm
evalcases:
${CASES.map(
  (id) => `  - id: ${id}
    input_messages:
      - { role: system, content: You are a support agent. }
      - { role: user, content: "case ${id}: where is my refund?" }
    evaluators:
      - { name: mentions-refund, type: contains, value: refund }
`,
).join('')}`;

const targetsFile = (kind: string, settings: Record<string, string>) =>
  `targets:\n  - name: llm\n    provider: ${kind}\n${Object.entries(settings)
    .map(([key, value]) => `    ${key}: ${value}\n`)
    .join('')}    max_retries: 2\n`;

/** A server for `protocol` that answers each case as the file's header says, timing each call. */
async function startService(protocol: LlmProtocol) {
  const calls: { id: string; at: number; request: LlmRequest }[] = [];
  const server = await startLlmServer((request) => {
    const id = /case (\w+):/.exec(protocol.question(request))?.[1] ?? '?';
    calls.push({ id, at: Date.now(), request });
    const attempt = calls.filter((call) => call.id === id).length;
    if (id === 'busy' && attempt === 1) {
      return protocol.error(429, 'Rate limit reached.', { 'retry-after': '1' });
    }
    if (id === 'flaky' && attempt === 1) return protocol.error(500, 'Internal error.');
    if (id === 'refused') {
      const sent = request.headers[protocol.auth('')[0]];
      return protocol.error(401, `Incorrect API key provided: ${sent}.`);
    }
    return protocol.success(`Your refund for case ${id} is on its way.`);
  });
  servers.push(server);
  return { server, calls };
}

describe.each(LLM_PROTOCOLS)('provider: $kind against a local server', (protocol) => {
  it('records usage, waits out a 429, retries a 500 and fails a 401 at once with the key masked', async () => {
    const { server, calls } = await startService(protocol);
    project = await createProject({
      '.env': `${protocol.keyVariable}=${API_KEY}\n`,
      '.agentv/targets.yaml': targetsFile(protocol.kind, {
        model: protocol.model,
        api_key: `\${{ ${protocol.keyVariable} }}`,
        ...protocol.settings(server.url),
      }),
      'evals/refunds.yaml': evalFile,
    });

    const run = await runAgentv(['eval', 'evals/refunds.yaml', '--out', 'out.jsonl'], project.dir);
    // The refused case is an error: exit 2.
    expect(run.code).toBe(2);
    const written = await readFile(project.file('out.jsonl'), 'utf8');
    const byId = new Map(parseJsonl(written).map((line) => [line.eval_id, line]));

    expect(byId.get('ok')).toMatchObject({
      passed: true,
      attempts: 1,
      candidate_answer: 'Your refund for case ok is on its way.',
      usage: protocol.usage,
    });
    // A cost only where it is known: the price table, or what the service reported.
    if (protocol.costUsd === undefined) expect(byId.get('ok')).not.toHaveProperty('cost_usd');
    else expect(byId.get('ok')!.cost_usd).toBeCloseTo(protocol.costUsd, 12);
    expect(byId.get('busy')).toMatchObject({ passed: true, attempts: 2 });
    expect(byId.get('flaky')).toMatchObject({ passed: true, attempts: 2 });
    const busy = calls.filter((call) => call.id === 'busy');
    expect(busy).toHaveLength(2);
    // The retry waited for Retry-After: 1, as the server's clock saw it.
    expect(busy[1]!.at - busy[0]!.at).toBeGreaterThanOrEqual(990);

    // 401: one call, the service's message with the key masked, a hint naming the variable.
    expect(calls.filter((call) => call.id === 'refused')).toHaveLength(1);
    expect(byId.get('refused')).toMatchObject({ passed: false, attempts: 1 });
    expect(byId.get('refused')!.error).toMatch(
      new RegExp(`^${protocol.kind} target "llm": HTTP 401: Incorrect API key provided`),
    );
    expect(byId.get('refused')!.error).toContain(`(hint: check ${protocol.keyVariable}: `);
    for (const text of [written, run.stdout, run.stderr]) expect(text).not.toContain(API_KEY);

    // Every call went to the service's path with the key and the model.
    const [header, value] = protocol.auth(API_KEY);
    for (const { request } of calls) {
      expect(request.url).toBe(protocol.path);
      expect(request.headers[header]).toBe(value);
      // Bedrock and Vertex name the model in the path; chat completions in the body.
      if (protocol.path.endsWith('/chat/completions'))
        expect(request.body.model).toBe(protocol.model);
    }
  });
});

describe('cloud credentials without an API key', () => {
  it('bedrock signs with the access keys from .env', async () => {
    const bedrock = LLM_PROTOCOLS.find((protocol) => protocol.kind === 'bedrock')!;
    const { server, calls } = await startService(bedrock);
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    project = await createProject({
      '.env': `AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=${secret}\n`,
      '.agentv/targets.yaml': targetsFile('amazon-bedrock', {
        model: bedrock.model,
        region: 'eu-central-1',
        access_key_id: '${{ AWS_ACCESS_KEY_ID }}',
        secret_access_key: '${{ AWS_SECRET_ACCESS_KEY }}',
        base_url: server.url,
      }),
      'evals/refunds.yaml': evalFile.split('  - id: busy')[0]!,
    });

    const run = await runAgentv(['eval', 'evals/refunds.yaml', '--out', 'out.jsonl'], project.dir, {
      AWS_BEARER_TOKEN_BEDROCK: undefined,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const [line] = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(line).toMatchObject({ passed: true, usage: bedrock.usage });
    expect(calls[0]!.request.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/eu-central-1\/bedrock\/aws4_request, /,
    );
  });

  it("vertex calls the project's URL with a token from Google's default credentials", async () => {
    const vertex = LLM_PROTOCOLS.find((protocol) => protocol.kind === 'vertex')!;
    const { server, calls } = await startService(vertex);
    // Google's metadata server, where Google's libraries get a token on Google Cloud.
    const metadata = await startLlmServer((request) => {
      const headers = { 'metadata-flavor': 'Google' };
      if (request.url.startsWith('/computeMetadata/v1/instance/service-accounts/default/token')) {
        const token = { access_token: 'ya29.e2e-token', expires_in: 3599, token_type: 'Bearer' };
        return { status: 200, headers, body: token };
      }
      return {
        status: request.url === '/computeMetadata/v1/instance' ? 200 : 404,
        headers,
        body: {},
      };
    });
    servers.push(metadata);
    const gcloudConfig = await mkdtemp(path.join(tmpdir(), 'agentv-gcloud-'));
    project = await createProject({
      '.agentv/targets.yaml': targetsFile('google-vertex', {
        model: vertex.model,
        project: 'agentv-e2e',
        location: 'europe-west4',
        base_url: `${server.url}/v1`,
      }),
      'evals/refunds.yaml': evalFile.split('  - id: busy')[0]!,
    });

    try {
      const run = await runAgentv(
        ['eval', 'evals/refunds.yaml', '--out', 'out.jsonl'],
        project.dir,
        {
          GCE_METADATA_HOST: new URL(metadata.url).host,
          CLOUDSDK_CONFIG: gcloudConfig,
          GOOGLE_APPLICATION_CREDENTIALS: undefined,
          GOOGLE_VERTEX_API_KEY: undefined,
        },
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    } finally {
      await rm(gcloudConfig, { recursive: true, force: true });
    }
    const [line] = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
    expect(line).toMatchObject({ passed: true, usage: vertex.usage });
    expect(calls[0]!.request.url).toBe(
      '/v1/projects/agentv-e2e/locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    expect(calls[0]!.request.headers.authorization).toBe('Bearer ya29.e2e-token');
  });
});
