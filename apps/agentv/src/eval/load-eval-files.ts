import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type EvalFile, type LoadEvalFileOptions, loadEvalFile } from '@agentv/core';
import type { LoadResult } from '@agentv/core/internal';

/** One file for a worker to load. */
export interface EvalFileJob {
  id: number;
  path: string;
  options: LoadEvalFileOptions;
}

/** A worker's answer: the loader's result, or the stack of an unexpected error. */
export type EvalFileJobReply =
  | { id: number; result: LoadResult<EvalFile>; error?: undefined }
  | { id: number; error: string; result?: undefined };

/** Below this much YAML, starting workers costs more than it saves. */
const PARALLEL_ABOVE_BYTES = 512 * 1024;
const MAX_WORKERS = 8;
const WORKER_URL = new URL('./load-eval-file-worker.js', import.meta.url);

/**
 * Loads eval files (each with its own options), in order. Parsing YAML is
 * nearly all the time spent, so with `parallel` large inputs are spread over
 * worker threads, one per CPU (faster, at the cost of memory: each thread
 * holds its own heap); small ones always load in this thread. The results
 * are the same either way.
 */
export async function loadEvalFiles(
  requests: readonly { path: string; options: LoadEvalFileOptions }[],
  options: { parallel?: boolean } = {},
): Promise<LoadResult<EvalFile>[]> {
  if (options.parallel !== true) return loadHere(requests);
  const workers = Math.min(MAX_WORKERS, availableParallelism(), requests.length);
  if (workers < 2 || !existsSync(fileURLToPath(WORKER_URL))) return loadHere(requests);
  const sizes = await Promise.all(
    requests.map((request) =>
      stat(request.path).then(
        (info) => info.size,
        () => 0,
      ),
    ),
  );
  if (sizes.reduce((sum, size) => sum + size, 0) < PARALLEL_ABOVE_BYTES) {
    return loadHere(requests);
  }
  return loadInWorkers(requests, workers);
}

async function loadHere(
  requests: readonly { path: string; options: LoadEvalFileOptions }[],
): Promise<LoadResult<EvalFile>[]> {
  const results: LoadResult<EvalFile>[] = [];
  for (const request of requests) results.push(await loadEvalFile(request.path, request.options));
  return results;
}

async function loadInWorkers(
  requests: readonly { path: string; options: LoadEvalFileOptions }[],
  count: number,
): Promise<LoadResult<EvalFile>[]> {
  const results = new Array<LoadResult<EvalFile>>(requests.length);
  let next = 0;
  // Imported here: node's worker_threads module (~2 ms to load) serves only large inputs.
  const { Worker } = await import('node:worker_threads');
  const pool = Array.from({ length: count }, () => new Worker(WORKER_URL));
  try {
    await Promise.all(
      pool.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            const send = () => {
              if (next >= requests.length) return resolve();
              const id = next++;
              // A function cannot be posted to a thread (and the thread's heap is its own).
              const { onDatasetSize: _, ...options } = requests[id]!.options;
              const job: EvalFileJob = { id, path: requests[id]!.path, options };
              worker.postMessage(job);
            };
            worker.on('message', (reply: EvalFileJobReply) => {
              if (reply.error !== undefined) {
                const error = new Error(`loading ${requests[reply.id]!.path} failed`);
                error.stack = reply.error;
                return reject(error);
              }
              results[reply.id] = reply.result;
              send();
            });
            worker.once('error', reject);
            worker.once('exit', (code) => {
              reject(
                new Error(`an eval file loader thread stopped unexpectedly (exit code ${code})`),
              );
            });
            send();
          }),
      ),
    );
  } finally {
    await Promise.all(pool.map((worker) => worker.terminate()));
  }
  return results;
}
