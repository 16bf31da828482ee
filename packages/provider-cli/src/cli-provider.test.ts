import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { ProviderError, shellQuote } from '@agentv/core/provider-utils';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type CliProviderOptions, cliProviderFactory, createCliProvider } from './cli-provider.js';
import {
  type CliProviderSettings,
  DEFAULT_CLI_TIMEOUT_SECONDS,
  parseCliSettings,
} from './cli-provider-settings.js';
import { catchError } from './test-support/catch-error.js';
import { fakeAgentCommand } from './test-support/fake-agent-path.js';
import { makeRequest } from './test-support/make-request.js';
import { makeTarget } from './test-support/make-target.js';
import { processAlive } from './test-support/process-alive.js';

const scratch = mkdtempSync(join(tmpdir(), 'agentv-cli-provider-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function provider(
  commandTemplate: string,
  settings: Partial<CliProviderSettings> = {},
  options: Partial<CliProviderOptions> = {},
) {
  return createCliProvider(
    {
      commandTemplate,
      filesFormat: '{path}',
      attachmentsFormat: '{path}',
      cwd: scratch,
      env: {},
      verbose: false,
      ...settings,
    },
    { targetName: 'my_agent', killGraceMs: 200, ...options },
  );
}

interface Echo {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
}

const echoed = (text: string) => JSON.parse(text) as Echo;

async function waitUntil(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('cli provider: arguments', () => {
  const marker = join(tmpdir(), `PWNED-${randomUUID()}`);
  afterEach(() => {
    expect(existsSync(marker), 'an injected command ran').toBe(false);
  });

  it('passes a hostile prompt, id and guidelines byte for byte and runs nothing injected', async () => {
    const prompt = [
      `it's "quoted" and \`backticked\``,
      `$(touch ${marker}) \`touch ${marker}\``,
      `a; touch ${marker} && touch ${marker} || touch ${marker} | cat > ${marker}`,
      'tab\there, back\\slash\\\\, trailing backslash \\',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell expansion, on purpose
      '✅ 日本語 🚀 ${HOME} $PATH {PROMPT} {{EVAL_ID}}',
      '',
    ].join('\n');
    const response = await provider(
      `${fakeAgentCommand('echo')} {PROMPT} {EVAL_ID} {GUIDELINES} {ATTEMPT}`,
    ).invoke(
      makeRequest({
        question: prompt,
        evalCaseId: `id'; touch ${marker}`,
        guidelines: `$(touch ${marker})`,
        attempt: 2,
      }),
    );
    expect(echoed(response.text).argv).toEqual([
      prompt,
      `id'; touch ${marker}`,
      `$(touch ${marker})`,
      '2',
    ]);
  });

  it('renders files through files_format and attachments_format, one argument each', async () => {
    // Run in the marker's directory so a relative `touch` would create the marker.
    const hostileName = `$(touch ${basename(marker)}).md`;
    const files = [join(scratch, 'a b.txt'), join(scratch, hostileName)];
    const response = await provider(`${fakeAgentCommand('echo')} {FILES} -- {ATTACHMENTS}`, {
      cwd: dirname(marker),
      filesFormat: '--file={path}',
      attachmentsFormat: '{basename}',
    }).invoke(makeRequest({ inputFiles: files }));
    expect(echoed(response.text).argv).toEqual([
      `--file=${files[0]}`,
      `--file=${files[1]}`,
      '--',
      'a b.txt',
      hostileName,
    ]);
  });

  it('renders {FILES} as no argument at all when the case has no files', async () => {
    const response = await provider(`${fakeAgentCommand('echo')} {FILES} end`).invoke(
      makeRequest(),
    );
    expect(echoed(response.text).argv).toEqual(['end']);
  });

  it('writes {PROMPT_FILE} and {INPUT_FILE}, and removes them afterwards', async () => {
    const request = makeRequest({
      question: 'Summarise\nthis 📄',
      guidelines: 'Be brief.',
      inputFiles: ['/data/report.pdf'],
      expectedOutcome: 'A short summary',
    });
    const response = await provider(
      `${fakeAgentCommand('files')} {PROMPT_FILE} {INPUT_FILE}`,
    ).invoke(request);
    const { paths, contents } = JSON.parse(response.text) as {
      paths: [string, string];
      contents: Record<string, string>;
    };
    expect(contents[paths[0]]).toBe('Summarise\nthis 📄');
    expect(JSON.parse(contents[paths[1]] ?? '')).toEqual({
      id: 'case-1',
      question: 'Summarise\nthis 📄',
      guidelines: 'Be brief.',
      guideline_files: [],
      input_files: ['/data/report.pdf'],
      input_messages: [{ role: 'user', content: 'Summarise\nthis 📄' }],
      expected_outcome: 'A short summary',
    });
    expect(dirname(paths[0])).toBe(dirname(paths[1]));
    expect(existsSync(dirname(paths[0]))).toBe(false);
  });
});

describe('cli provider: output', () => {
  it('reads the answer from stdout, parsing a JSON answer', async () => {
    const answer = JSON.stringify({
      text: 'Paris',
      trace: [{ type: 'message', timestamp: '2025-01-01T00:00:00Z', text: 'Paris' }],
      duration_ms: 5,
    });
    const response = await provider(`printf '%s\\n' {PROMPT}`).invoke(
      makeRequest({ question: answer }),
    );
    expect(response.text).toBe('Paris');
    expect(response.trace).toHaveLength(1);
    expect(response.durationMs).toBe(5);
    expect(response.raw).toMatchObject({ exitCode: 0, stderr: '', cwd: scratch });
  });

  it('reads the answer from {OUTPUT_FILE} instead of stdout, then removes it', async () => {
    const answer = { text: 'from the file', usage: { input_tokens: 3 }, cost_usd: 0.5 };
    const response = await provider(`${fakeAgentCommand('write')} {OUTPUT_FILE} {PROMPT}`).invoke(
      makeRequest({ question: JSON.stringify(answer) }),
    );
    expect(response.text).toBe('from the file');
    expect(response.usage).toEqual({ inputTokens: 3 });
    expect(response.costUsd).toBe(0.5);
    expect(response.durationMs).toBeGreaterThan(0);

    const ownPath = await provider(
      `${fakeAgentCommand('write')} {OUTPUT_FILE} {OUTPUT_FILE}`,
    ).invoke(makeRequest());
    expect(ownPath.text).toMatch(/agentv-cli-.*output\.txt$/);
    expect(existsSync(dirname(ownPath.text))).toBe(false);
  });

  it('removes the call folder with everything the command left in it', async () => {
    const record = join(scratch, `call-dir-${randomUUID()}`);
    const response = await provider(
      `d=$(dirname {OUTPUT_FILE}); echo "$d" > ${shellQuote(record)}; mkdir "$d/sub"; echo x > "$d/sub/f"; ` +
        'cat {PROMPT_FILE} > {OUTPUT_FILE}; test -s {INPUT_FILE}',
    ).invoke(makeRequest({ question: 'the prompt' }));
    expect(response.text).toBe('the prompt');
    const callDir = readFileSync(record, 'utf8').trim();
    expect(callDir).toMatch(/agentv-cli-/);
    expect(existsSync(callDir)).toBe(false);
  });

  it('gives each call a folder holding nothing from earlier calls, also while other calls run', async () => {
    const agent = provider(
      'd=$(dirname {OUTPUT_FILE}); case {PROMPT} in ' +
        'keep) sleep 1; echo kept > {OUTPUT_FILE};; ' +
        'junk) echo x > "$d/junk"; echo "$d" > {OUTPUT_FILE};; ' +
        '*) l=$(ls -A "$d"); echo "$l|$d" > {OUTPUT_FILE};; esac',
    );
    // A call running the whole time keeps the run's folder alive between the others.
    const keeper = agent.invoke(makeRequest({ question: 'keep' }));
    const junk = await agent.invoke(makeRequest({ question: 'junk' }));
    const first = await agent.invoke(makeRequest({ question: 'list' }));
    const second = await agent.invoke(makeRequest({ question: 'list' }));
    expect((await keeper).text).toBe('kept');
    for (const listing of [first.text, second.text]) {
      const [files, dir] = listing.split('|');
      expect(files).toBe('');
      expect(dir).not.toBe(junk.text);
    }
    expect(existsSync(junk.text)).toBe(false);
    expect(existsSync(dirname(junk.text))).toBe(false);
  });

  it('fails when the command does not write {OUTPUT_FILE}', async () => {
    const error = (await catchError(() =>
      provider(`${fakeAgentCommand('echo')} {OUTPUT_FILE}`).invoke(makeRequest()),
    )) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toMatch(/did not write \{OUTPUT_FILE\}/);
  });
});

describe('cli provider: large output', () => {
  it('keeps multi-byte characters intact across stdout chunks', async () => {
    const script = "process.stdout.write('a' + '🚀日'.repeat(100000))";
    const response = await provider(
      `${shellQuote(process.execPath)} -e ${shellQuote(script)}`,
    ).invoke(makeRequest());
    expect(response.text).toBe(`a${'🚀日'.repeat(100000)}`);
  });
});

describe('cli provider: environment', () => {
  it('runs in cwd with the process environment plus the target env', async () => {
    const cwd = mkdtempSync(join(scratch, 'cwd-'));
    process.env.AGENTV_TEST_INHERITED = 'from parent';
    try {
      const response = await provider(`${fakeAgentCommand('echo')}`, {
        cwd,
        env: { AGENTV_TEST_ADDED: 'from target', AGENTV_TEST_INHERITED: 'overridden' },
      }).invoke(makeRequest());
      expect(echoed(response.text)).toMatchObject({
        cwd,
        env: { AGENTV_TEST_ADDED: 'from target', AGENTV_TEST_INHERITED: 'overridden' },
      });
      const inherited = await provider(`${fakeAgentCommand('echo')}`).invoke(makeRequest());
      expect(echoed(inherited.text).env).toEqual({ AGENTV_TEST_INHERITED: 'from parent' });
    } finally {
      delete process.env.AGENTV_TEST_INHERITED;
    }
  });

  it("starts from the context's env (the project's, with .env) instead of process.env", async () => {
    const response = await provider(
      `${fakeAgentCommand('echo')}`,
      { env: { AGENTV_TEST_ADDED: 'from target' } },
      { env: { ...process.env, AGENTV_TEST_FROM_PROJECT: 'from .env' } },
    ).invoke(makeRequest());
    expect(echoed(response.text).env).toEqual({
      AGENTV_TEST_ADDED: 'from target',
      AGENTV_TEST_FROM_PROJECT: 'from .env',
    });
    expect(process.env.AGENTV_TEST_FROM_PROJECT).toBeUndefined();
  });

  it('closes stdin, so an agent reading it gets end-of-file at once', async () => {
    const response = await provider(`${fakeAgentCommand('stdin')}`).invoke(makeRequest());
    // With stdin left open the agent would wait for input until the test times out.
    const { bytes } = JSON.parse(response.text) as { bytes: number };
    expect(bytes).toBe(0);
  });

  it('fails with a clear message when cwd does not exist', async () => {
    const error = (await catchError(() =>
      provider('true', { cwd: join(scratch, 'gone') }).invoke(makeRequest()),
    )) as ProviderError;
    expect(error.message).toBe(
      `could not start the command: working directory ${join(scratch, 'gone')} does not exist`,
    );
    expect(error.retryable).toBe(false);
  });

  it('fails without a stack of internals when an env value cannot be passed', async () => {
    const error = (await catchError(() =>
      provider('true', { env: { AGENTV_TEST_BAD: 'a\0b' } }).invoke(makeRequest()),
    )) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toMatch(/^could not start the command in /);
    expect(error.retryable).toBe(false);
  });

  it('logs the command, cwd, duration and stderr when verbose, with env values masked', async () => {
    const lines: string[] = [];
    const secret = 'sk-test-0123456789';
    const response = await provider(
      `${fakeAgentCommand('fail')} 0 "token=$AGENTV_TEST_TOKEN"; echo done # ${secret}`,
      { env: { AGENTV_TEST_TOKEN: secret } },
      { verbose: true, log: (line) => lines.push(line) },
    ).invoke(makeRequest());
    const log = lines.join('\n');
    // Attempts are shown counted from 1; every line names the case and attempt.
    expect(log).toContain('[cli:my_agent] case-1 attempt 1: ');
    expect(log).toContain('# ***');
    expect(log).toContain(`[cli:my_agent] case-1 attempt 1 cwd: ${scratch}`);
    expect(log).toMatch(
      /\[cli:my_agent\] case-1 attempt 1 command exited with code 0 after \d+ ms/,
    );
    expect(log).toContain('[cli:my_agent] case-1 attempt 1 stderr: token=***');
    expect(log).not.toContain(secret);
    expect(JSON.stringify(response.raw)).not.toContain(secret);
    expect(response.raw).toMatchObject({ stderr: 'token=***' });
  });

  it('logs nothing when not verbose', async () => {
    const lines: string[] = [];
    await provider('echo hi', {}, { log: (line) => lines.push(line) }).invoke(makeRequest());
    expect(lines).toEqual([]);
  });
});

describe('cli provider: failures', () => {
  it('reports a non-zero exit with its code and the start and end of stderr on one line', async () => {
    const error = (await catchError(() =>
      provider(`${fakeAgentCommand('fail')} 3 'something broke' 500`).invoke(makeRequest()),
    )) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toMatch(
      /^command exited with code 3; stderr: (something broke \| )+… \d+ lines cut …( \| something broke)+$/,
    );
    expect(error.message).toMatch(/something broke$/);
    expect(error.exitCode).toBe(3);
    expect(error.retryable).toBe(true);
    expect(error.stderr?.length).toBeLessThanOrEqual(2049);
    expect(error.stderr).toMatch(/something broke$/);
  });

  it('masks env values in the error', async () => {
    const error = (await catchError(() =>
      provider(`${fakeAgentCommand('fail')} 1 "$AGENTV_TEST_KEY"`, {
        env: { AGENTV_TEST_KEY: 'very-secret-key' },
      }).invoke(makeRequest()),
    )) as ProviderError;
    expect(error.message).toBe('command exited with code 1; stderr: ***');
  });

  it('removes its temp files when the command fails', async () => {
    const error = (await catchError(() =>
      provider(`${fakeAgentCommand('fail')} 1 {PROMPT_FILE}`).invoke(makeRequest()),
    )) as ProviderError;
    const promptFile = error.stderr ?? '';
    expect(promptFile).toMatch(/agentv-cli-.*prompt\.txt$/);
    expect(existsSync(dirname(promptFile))).toBe(false);
  });

  it('on timeout stops the whole process group, SIGKILL after SIGTERM is ignored', async () => {
    const pidFile = join(scratch, `pids-${randomUUID()}.json`);
    const error = (await catchError(() =>
      // Long enough for node to start and write its pids on a busy machine.
      provider(`${fakeAgentCommand('stubborn')} ${pidFile} {PROMPT_FILE}`, {
        timeoutSeconds: 8,
      }).invoke(makeRequest()),
    )) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe('timed out after 8s; stderr: working...');
    expect(error.retryable).toBe(true);
    const pids = JSON.parse(readFileSync(pidFile, 'utf8')) as {
      agent: number;
      grandchild: number;
      argv: string[];
    };
    expect(processAlive(pids.agent)).toBe(false);
    expect(processAlive(pids.grandchild)).toBe(false);
    expect(existsSync(dirname(pids.argv[0] ?? ''))).toBe(false);
  });

  it('uses the run default timeout when the target sets none', async () => {
    const pidFile = join(scratch, `pids-${randomUUID()}.json`);
    const error = (await catchError(() =>
      provider(
        `${fakeAgentCommand('stubborn')} ${pidFile}`,
        {},
        { defaultTimeoutSeconds: 0.3 },
      ).invoke(makeRequest()),
    )) as ProviderError;
    expect(error.message).toMatch(/^timed out after 0\.3s/);
  });

  it('gives a target without timeout_seconds a 600 s limit per call, and says so under --verbose', async () => {
    expect(DEFAULT_CLI_TIMEOUT_SECONDS).toBe(600);
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);
    const settings = parseCliSettings(makeTarget({ command_template: 'printf ok' }));
    expect(settings.timeoutSeconds).toBeUndefined();
    provider('printf ok', settings, { verbose: true, log });
    provider('printf ok', { timeoutSeconds: 30 }, { verbose: true, log });
    provider('printf ok', { timeoutSeconds: 30 }, { verbose: true, log, defaultTimeoutSeconds: 2 });
    provider('printf ok', { mode: 'persistent' }, { verbose: true, log });
    expect(lines).toEqual([
      "[cli:my_agent] time limit per call: 600 s (the provider's default; set timeout_seconds to change it)",
      '[cli:my_agent] time limit per call: 30 s (timeout_seconds)',
      '[cli:my_agent] time limit per call: 2 s (--agent-timeout)',
      "[cli:my_agent] time limit per call: 600 s (the provider's default; set timeout_seconds to change it)",
    ]);
  });

  it('stops the process group when the request signal aborts', async () => {
    const pidFile = join(scratch, `pids-${randomUUID()}.json`);
    const controller = new AbortController();
    const invocation = provider(`${fakeAgentCommand('stubborn')} ${pidFile}`).invoke(
      makeRequest({ signal: controller.signal }),
    );
    // Once the agent wrote both pids (a file that exists may not hold them yet).
    await waitUntil(() => {
      try {
        JSON.parse(readFileSync(pidFile, 'utf8'));
        return true;
      } catch {
        return false;
      }
    });
    controller.abort();
    const error = (await catchError(() => invocation)) as ProviderError;
    expect(error.message).toBe('the command was stopped: the run was interrupted');
    expect(error.retryable).toBe(false);
    const pids = JSON.parse(readFileSync(pidFile, 'utf8')) as { agent: number; grandchild: number };
    expect(processAlive(pids.agent)).toBe(false);
    expect(processAlive(pids.grandchild)).toBe(false);
  });

  it('does not start the command when the signal has already fired', async () => {
    const marker = join(scratch, `started-${randomUUID()}`);
    const error = (await catchError(() =>
      provider(`touch ${marker}`).invoke(makeRequest({ signal: AbortSignal.abort() })),
    )) as ProviderError;
    expect(error.retryable).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });

  it('stops background processes the command leaves behind', async () => {
    const pidFile = join(scratch, `pids-${randomUUID()}.json`);
    const response = await provider(`${fakeAgentCommand('leave-child')} ${pidFile}`).invoke(
      makeRequest(),
    );
    expect(response.text).toBe('done');
    const pids = JSON.parse(readFileSync(pidFile, 'utf8')) as { grandchild: number };
    expect(processAlive(pids.grandchild)).toBe(false);
  });
});

describe('cliProviderFactory', () => {
  it('validates and creates a provider from a target', async () => {
    const target = makeTarget(
      { command_template: `${fakeAgentCommand('echo')} {EVAL_ID}`, cwd: '.' },
      { baseDir: scratch },
    );
    expect(cliProviderFactory.kind).toBe('cli');
    expect(cliProviderFactory.settingsKeys).toContain('command_template');
    expect(cliProviderFactory.validate?.(target)).toEqual([]);
    const created = cliProviderFactory.create(target, {});
    expect(created).toMatchObject({
      specificationVersion: 'v1',
      id: 'cli:my_agent',
      kind: 'cli',
      targetName: 'my_agent',
    });
    expect(created.healthcheck).toBeUndefined();
    const response = await created.invoke(makeRequest({ evalCaseId: 'x-1' }));
    expect(echoed(response.text)).toMatchObject({ argv: ['x-1'], cwd: scratch });
  });

  it('gives the provider a health check when the target has one', async () => {
    const target = makeTarget(
      {
        command_template: 'true',
        healthcheck: { type: 'command', command_template: 'echo "not up yet" >&2; exit 1' },
      },
      { baseDir: scratch },
    );
    const created = cliProviderFactory.create(target, {});
    const error = (await catchError(() => created.healthcheck?.())) as ProviderError;
    expect(error.message).toMatch(/^command .* exited with code 1; stderr: not up yet$/);
  });

  it('reports invalid settings through validate', () => {
    const target = makeTarget({ command_template: 'agent {NOPE}' });
    expect(cliProviderFactory.validate?.(target)).toEqual([
      expect.objectContaining({ path: ['command_template'] }),
    ]);
  });
});
