import { parentPort } from 'node:worker_threads';
import { loadEvalFile } from '@agentv/core';
import type { EvalFileJob, EvalFileJobReply } from './load-eval-files.js';

// Loads the eval files the main thread sends, one message per file (see load-eval-files.ts).
parentPort!.on('message', async (job: EvalFileJob) => {
  let reply: EvalFileJobReply;
  try {
    reply = { id: job.id, result: await loadEvalFile(job.path, job.options) };
  } catch (error) {
    reply = {
      id: job.id,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    };
  }
  parentPort!.postMessage(reply);
});
