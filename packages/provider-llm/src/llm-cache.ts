import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/** What a cache entry keeps of an answer. */
export interface CachedAnswer {
  text: string;
  usage?: Record<string, number>;
}

/** The inputs that decide an LLM call's answer; the API key is deliberately not among them. */
export interface LlmCallKey {
  kind: string;
  model: string;
  baseUrl?: string;
  messages: unknown;
  parameters: Record<string, unknown>;
}

/** A disk cache of LLM answers, one JSON file per call. */
export interface LlmCache {
  read(key: string): Promise<CachedAnswer | undefined>;
  /** Writes atomically (a temporary file renamed into place); a failure is reported, never thrown. */
  write(key: string, answer: CachedAnswer): Promise<void>;
}

const entrySchema = z.object({
  version: z.literal(1),
  text: z.string(),
  usage: z.record(z.string(), z.number()).optional(),
});

/** The cache key of a call: a SHA-256 over its kind, model, base URL, messages and parameters. */
export function llmCacheKey(call: LlmCallKey): string {
  const canonical = JSON.stringify([
    1,
    call.kind,
    call.model,
    call.baseUrl ?? null,
    call.messages,
    Object.entries(call.parameters)
      .filter(([, value]) => value !== undefined)
      .sort(([a], [b]) => a.localeCompare(b)),
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * A cache in `<dir>/llm/`. A missing, unreadable or malformed entry is a miss;
 * `onWriteError` hears about entries that could not be written.
 */
export function createLlmCache(dir: string, onWriteError?: (message: string) => void): LlmCache {
  const fileOf = (key: string) => path.join(dir, 'llm', key.slice(0, 2), `${key}.json`);
  return {
    async read(key) {
      let text: string;
      try {
        text = await readFile(fileOf(key), 'utf8');
      } catch {
        return undefined;
      }
      try {
        const parsed = entrySchema.safeParse(JSON.parse(text));
        if (!parsed.success) return undefined;
        const { text: answer, usage } = parsed.data;
        return usage === undefined ? { text: answer } : { text: answer, usage };
      } catch {
        return undefined;
      }
    },
    async write(key, answer) {
      const file = fileOf(key);
      const temporary = `${file}.${process.pid}.${randomUUID()}.tmp`;
      try {
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(temporary, `${JSON.stringify({ version: 1, ...answer })}\n`, 'utf8');
        await rename(temporary, file);
      } catch (error) {
        await rm(temporary, { force: true }).catch(() => {});
        onWriteError?.(`could not write the LLM cache entry ${file}: ${(error as Error).message}`);
      }
    },
  };
}
