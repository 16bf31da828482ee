import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  isProviderError,
  type Provider,
  type ProviderError,
  shellQuote,
} from '@agentv/core/provider-utils';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCliProvider } from './cli-provider.js';
import type { CliProviderSettings } from './cli-provider-settings.js';
import { catchError } from './test-support/catch-error.js';
import { makeRequest } from './test-support/make-request.js';

const KIB = 1024;
const LIMIT = 64 * KIB;
const scratch = mkdtempSync(join(tmpdir(), 'agentv-output-limit-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let open: Provider[] = [];
afterEach(async () => {
  await Promise.all(open.map((provider) => provider.close?.()));
  open = [];
});

function provider(
  commandTemplate: string,
  settings: Partial<CliProviderSettings> = {},
  log?: string[],
): Provider {
  const created = createCliProvider(
    {
      commandTemplate,
      filesFormat: '{path}',
      attachmentsFormat: '{path}',
      cwd: scratch,
      env: {},
      verbose: log !== undefined,
      timeoutSeconds: 60,
      maxOutputBytes: LIMIT,
      ...settings,
    },
    {
      targetName: 'agent',
      killGraceMs: 300,
      ...(log === undefined ? {} : { log: (line: string) => log.push(line) }),
    },
  );
  open.push(created);
  return created;
}

/** A Node script in the scratch folder, run with this Node; returns the command running it. */
function script(name: string, source: string): string {
  const path = join(scratch, name);
  writeFileSync(path, source);
  return `${shellQuote(process.execPath)} ${shellQuote(path)}`;
}

async function failure(run: () => Promise<unknown>): Promise<ProviderError> {
  const error = await catchError(run);
  expect(isProviderError(error), String(error)).toBe(true);
  return error as ProviderError;
}

const write = (bytes: number) => `head -c ${bytes} /dev/zero | tr '\\0' a`;

describe('max_output_bytes of a cli target', () => {
  it('stops an endless writer on stdout and errors the case without a retry', async () => {
    const error = await failure(() => provider('exec yes').invoke(makeRequest()));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(
      /^the agent's answer on stdout passed max_output_bytes \(64 KiB\): it had written [\d.]+ (KiB|MiB|GiB) when it was stopped$/,
    );
    expect(error.hint).toContain('raise max_output_bytes on the target');
    expect(error.message).not.toContain('/bin/sh');
  });

  it('gives the graders an answer of exactly max_output_bytes whole', async () => {
    const response = await provider(write(LIMIT)).invoke(makeRequest());
    expect(response.text).toBe('a'.repeat(LIMIT));
    const error = await failure(() => provider(write(LIMIT + 1)).invoke(makeRequest()));
    // Seen after the command ended, or (on a slow machine) just before.
    expect(error.message).toMatch(
      /^the agent's answer on stdout passed max_output_bytes \(64 KiB\): it (wrote|had written) 64.0 KiB/,
    );
  });

  it('stops an endless writer to {OUTPUT_FILE}, and does not read stdout in that mode', async () => {
    const error = await failure(() =>
      provider('echo logs; exec yes > {OUTPUT_FILE}').invoke(makeRequest()),
    );
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(
      /^the agent's answer in \{OUTPUT_FILE\} passed max_output_bytes \(64 KiB\): it had written .* when it was stopped$/,
    );
    // A long log on stdout is not the answer in {OUTPUT_FILE} mode, and is not held to the limit.
    const response = await provider(`${write(LIMIT * 4)}; echo answer > {OUTPUT_FILE}`).invoke(
      makeRequest(),
    );
    expect(response.text).toBe('answer');
  });

  it('reads no more than max_output_bytes + 1 of an {OUTPUT_FILE} that never ends', async () => {
    const error = await failure(() =>
      provider('ln -sf /dev/zero {OUTPUT_FILE}').invoke(makeRequest()),
    );
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      "the agent's answer in {OUTPUT_FILE} passed max_output_bytes (64 KiB)",
    );
  });

  it('never waits for a writer when {OUTPUT_FILE} is a FIFO', async () => {
    // Read at once: nothing was written, which is the empty-answer error, not a hang.
    const single = await failure(() =>
      provider('rm -f {OUTPUT_FILE}; mkfifo {OUTPUT_FILE}').invoke(makeRequest()),
    );
    expect(single.message).toMatch(
      /^the command exited with code 0 but wrote nothing to \{OUTPUT_FILE\}/,
    );
    const batch = await failure(() =>
      provider('rm -f {OUTPUT_FILE}; mkfifo {OUTPUT_FILE}; : {INPUT_FILE}').invokeBatch!([
        makeRequest(),
      ]),
    );
    expect(batch.message).toBe('batch output: no line for 1 of 1 requested case(s): case-1');
  });

  it('holds each batch line to max_output_bytes, and the file to it times the cases', async () => {
    const requests = ['a', 'b'].map((id) => makeRequest({ evalCaseId: id }));
    const lines = (texts: Record<string, number>) =>
      script(
        `batch-${Object.values(texts).join('-')}.mjs`,
        `import { writeFileSync } from 'node:fs';
const out = process.argv[2];
writeFileSync(out, ${JSON.stringify(Object.entries(texts))}
  .map(([id, size]) => JSON.stringify({ id, text: 'x'.repeat(size) }) + '\\n').join(''));`,
      );
    const fits = await provider(`${lines({ a: 60 * KIB, b: 60 * KIB })} {OUTPUT_FILE}`, {
      maxOutputBytes: LIMIT,
    }).invokeBatch!(requests);
    expect(fits.map((response) => response.text.length)).toEqual([60 * KIB, 60 * KIB]);

    const longLine = await failure(() =>
      provider(`${lines({ a: 10, b: 70 * KIB })} {OUTPUT_FILE}`).invokeBatch!(requests),
    );
    expect(longLine.retryable).toBe(false);
    expect(longLine.message).toMatch(
      /^batch output: line 2 of \{OUTPUT_FILE\} passed max_output_bytes \(64 KiB\) after [\d.]+ KiB; each line holds the answer of one case$/,
    );

    const longFile = await failure(() =>
      provider(`${lines({ a: 60 * KIB, b: 60 * KIB, c: 60 * KIB })} {OUTPUT_FILE}`).invokeBatch!(
        requests,
      ),
    );
    expect(longFile.retryable).toBe(false);
    expect(longFile.message).toMatch(
      /^batch output: \{OUTPUT_FILE\} passed max_output_bytes \(64 KiB\) for each of its 2 case\(s\), 128 KiB in all: it (wrote|held) 180 KiB/,
    );

    const endless = await failure(() =>
      provider(': {INPUT_FILE}; exec yes > {OUTPUT_FILE}').invokeBatch!(requests),
    );
    expect(endless.message).toContain('when the command was stopped');
  });

  it('stops a persistent worker whose reply line passes the limit, and serves the next case with a new one', async () => {
    const agent = script(
      'persistent-big.mjs',
      `import { createInterface } from 'node:readline';
createInterface({ input: process.stdin }).on('line', (line) => {
  const { id } = JSON.parse(line);
  process.stderr.write('e'.repeat(100000) + '\\n');
  if (id !== 'big') {
    process.stdout.write(JSON.stringify({ id, text: 'ok ' + id }) + '\\n');
    return;
  }
  const chunk = 'x'.repeat(65536);
  const more = () => { while (process.stdout.write(chunk)); };
  process.stdout.on('drain', more);
  more();
});`,
    );
    const log: string[] = [];
    const worker = provider(agent, { mode: 'persistent' }, log);
    const error = await failure(() => worker.invoke(makeRequest({ evalCaseId: 'big' })));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(
      /^\[cli:agent#1\]: the response line for case "big" passed max_output_bytes \(64 KiB\) after [\d.]+ KiB; the worker \(pid \d+\) was stopped$/,
    );
    const next = await worker.invoke(makeRequest({ evalCaseId: 'small' }));
    expect(next.text).toBe('ok small');
    // A long stderr line is cut in the log, never held whole.
    const stderrLines = log.filter((line) => line.includes('stderr: eee'));
    expect(stderrLines.length).toBeGreaterThan(0);
    for (const line of stderrLines) {
      expect(line.length).toBeLessThan(5000);
      expect(line.endsWith('… (line cut)')).toBe(true);
    }
  });
});
