import { open } from 'node:fs/promises';
import { AgentvError } from '@agentv/core';
import { displayPath } from '@agentv/core/internal';
import type {
  ProviderResponse,
  RecordedTraceReader,
  RecordedTraceRef,
} from '@agentv/core/provider-utils';

/** Most bytes of a session or trace file read (a long Codex session is a few MiB). */
export const MAX_RECORDED_TRACE_BYTES = 64 * 1024 * 1024;

/**
 * The reader of the sessions and trace files cases name in `trace: { source, path }`:
 * Codex rollouts and Claude Code sessions by `@agentv/provider-coding-agents`' readers,
 * OTLP/JSON by `@agentv/otel`'s mapping. Each file is read once per run.
 */
export function createRecordedTraceReader(cwd: string): RecordedTraceReader {
  const read = new Map<string, Promise<ProviderResponse>>();
  return {
    read(ref) {
      const key = `${ref.source}\0${ref.path}`;
      let response = read.get(key);
      if (response === undefined) {
        response = readRecordedTrace(ref, displayPath(cwd, ref.path));
        read.set(key, response);
      }
      // Each case gets its own copy: results and graders may change what they are given.
      return response.then((value) => structuredClone(value));
    },
  };
}

async function readRecordedTrace(ref: RecordedTraceRef, shown: string): Promise<ProviderResponse> {
  const text = await readText(ref, shown);
  switch (ref.source) {
    case 'codex-session': {
      const { readCodexSession } = await import('@agentv/provider-coding-agents');
      return readCodexSession(text, shown);
    }
    case 'claude-session': {
      const { readClaudeSession } = await import('@agentv/provider-coding-agents');
      return readClaudeSession(text, shown);
    }
    case 'otlp-file': {
      const { otlpJsonTrace } = await import('@agentv/otel');
      let collected: ReturnType<typeof otlpJsonTrace>;
      try {
        collected = otlpJsonTrace(text);
      } catch (error) {
        throw new AgentvError(`${shown} is not OTLP/JSON: ${(error as Error).message}`, {
          hint: 'an otlp-file holds one ExportTraceServiceRequest in JSON, or one per line (the OpenTelemetry Collector file exporter)',
        });
      }
      // Spans carry no "final answer": the last text a model step produced is the answer.
      const answer = collected.trace.findLast(
        (event) => (event.type === 'model_step' || event.type === 'message') && event.text,
      )?.text;
      const response: ProviderResponse = { text: answer ?? '', trace: collected.trace };
      if (collected.usage !== undefined) response.usage = collected.usage;
      const times = collected.trace.map((event) => Date.parse(event.timestamp));
      if (times.length > 1) response.durationMs = Math.max(...times) - Math.min(...times);
      if (collected.spanCount === 0) response.warnings = [`${shown} holds no spans`];
      return response;
    }
  }
}

async function readText(ref: RecordedTraceRef, shown: string): Promise<string> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(ref.path, 'r');
  } catch (error) {
    throw new AgentvError(
      `trace file ${shown} (${ref.source}) cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      { hint: 'check trace.path of the case: it is relative to the eval file' },
    );
  }
  try {
    const { size } = await handle.stat();
    if (size > MAX_RECORDED_TRACE_BYTES) {
      throw new AgentvError(
        `trace file ${shown} is ${size} bytes, more than AgentV reads of one (${MAX_RECORDED_TRACE_BYTES})`,
        { hint: 'grade a shorter session, or split it' },
      );
    }
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
