import { classifyFailure } from '../errors/failure-class.js';
import { ProviderError } from '../errors/provider-error.js';
import { buildPrompt, buildTextPrompt } from '../prompt/build-prompt.js';
import type { Provider } from '../provider/provider.js';
import type { ProviderRequest } from '../provider/provider-request.js';
import type { ProviderResponse } from '../provider/provider-response.js';
import { withRetries } from '../retry/retry-policy.js';
import type { CaseContext } from './case-context.js';
import { retryPolicyFor, verboseRetryWaits } from './case-retries.js';
import {
  type Answer,
  answerOf,
  attemptRecord,
  buildRequest,
  errorResult,
  gradeAnswer,
  reportReplyWarnings,
} from './case-steps.js';
import {
  changesIfKnown,
  type HeldWorkspace,
  holdWorkspace,
  workspaceForGraders,
} from './case-workspace.js';
import type { EvaluationResult } from './evaluation-result.js';
import { failureMessage, messageOf } from './failure-message.js';
import type { PlannedCase } from './plan-run.js';
import type { RunState } from './run-state.js';

/** Results of one grader reported before it waits for them. */
const EMIT_WINDOW = 64;

/** Cases graded between two turns of the event loop. */
const YIELD_EVERY = 512;

/** Longest batch error copied into each case's result. */
const CASE_ERROR_CHARS = 1000;

/** Reports a case's result: what the run's `onResult` hook returns (awaited when a promise). */
export type Emit = (result: EvaluationResult, planned: PlannedCase) => void | PromiseLike<void>;

/**
 * Answers a chunk of cases with one `provider.invokeBatch` call, retrying the
 * whole batch per the retry policy, then grades every answer (at most
 * `gradeConcurrency` at once) and emits each result. When the batch still
 * fails, every case in it gets an error result carrying the batch error —
 * there is no per-case fallback. Never throws.
 */
export async function evaluateBatch(
  chunk: readonly PlannedCase[],
  provider: Provider,
  run: RunState,
  gradeConcurrency: number,
  emit: Emit,
): Promise<void> {
  const { options } = run;
  const started = Date.now();
  // Per case only its planned case and its request (which holds the prompt the graders
  // read), in two arrays: one request per case serves every attempt.
  const cases: PlannedCase[] = [];
  const requests: ProviderRequest[] = [];
  // The workspace of each case that has one (`isolation: shared`: batches allow no other).
  const held: (HeldWorkspace | undefined)[] = [];
  for (const planned of chunk) {
    // Text-only prompts (most of a large batch) are built without an await per case.
    let prompt = buildTextPrompt(planned.evalCase);
    if (prompt === undefined) {
      try {
        prompt = await buildPrompt(planned.evalCase);
      } catch (error) {
        const context: CaseContext = { planned, run, started };
        await emit(
          errorResult(context, 0, `could not build the prompt: ${messageOf(error)}`, 'infra'),
          planned,
        );
        continue;
      }
    }
    // Outside the try above: a failing hook is the caller's bug, not a case's prompt.
    if (options.onPrompt !== undefined) {
      await options.onPrompt(planned.evalCase, prompt, planned.target);
    }
    let workspace: HeldWorkspace | undefined;
    if (planned.evalCase.workspace !== undefined) {
      const taken = await holdWorkspace({ planned, run, started }, prompt);
      if ('error' in taken) {
        await emit(taken.error, planned);
        continue;
      }
      workspace = taken;
    }
    cases.push(planned);
    held.push(workspace);
    requests.push(buildRequest({ planned, run, started }, prompt, 0, workspace));
  }
  if (cases.length === 0) return;

  let callStarted = 0;
  let firstCallStarted: number | undefined;
  const outcome = await withRetries(
    (attempt) => {
      callStarted = Date.now();
      firstCallStarted ??= callStarted;
      return callBatch(provider, requests, attempt);
    },
    retryPolicyFor(cases[0]!.target, options),
    {
      signal: options.signal,
      onWait: verboseRetryWaits(
        options,
        provider.id,
        (failed) => `batch of ${cases.length} attempt ${failed}`,
      ),
      onFailure: async (error, attempt) => {
        if (!options.onAttempt) return;
        const durationMs = Date.now() - callStarted;
        for (const planned of cases) {
          await options.onAttempt(
            attemptRecord(planned, attempt, durationMs, { error }, options.repeat),
          );
        }
      },
    },
  );
  if (outcome.ok) {
    const ended = Date.now();
    const durationMs = ended - callStarted;
    const timing = {
      firstStarted: firstCallStarted ?? callStarted,
      lastStarted: callStarted,
      ended,
    };
    const responses = outcome.value;
    // A few graders take the next case in turn: no promise or closure per case is made up
    // front, and each case's request and response are dropped as soon as it is graded.
    let next = 0;
    const grader = async () => {
      // Results are reported in order without waiting for each: up to EMIT_WINDOW at once, so
      // the result file gets many lines per write instead of one per grader.
      const reporting = new Reporting();
      while (next < cases.length) {
        // Grading a large batch is one long run of promise callbacks: let the event loop in
        // now and then, so output drains, signals (Ctrl-C) are handled and timers fire. Before
        // a case is taken, not after: the other graders do not report later cases before it.
        if (next % YIELD_EVERY === YIELD_EVERY - 1) {
          await new Promise(setImmediate);
          if (next >= cases.length) break;
        }
        const index = next++;
        const planned = cases[index]!;
        const request = requests[index]!;
        const workspace = held[index];
        const answer = answerOf(responses[index]!, outcome.attempts, timing);
        reportReplyWarnings(run, planned, responses[index]!);
        cases[index] = undefined as never;
        requests[index] = undefined as never;
        responses[index] = undefined as never;
        held[index] = undefined;
        if (options.onAttempt !== undefined) {
          await options.onAttempt(
            attemptRecord(planned, answer.attempts, durationMs, answer, options.repeat),
          );
        }
        const context: CaseContext = { planned, run, started };
        // Graders that grade at once (`evaluateNow`: contains, equals…) are not awaited.
        const graded =
          workspace === undefined
            ? gradeAnswer(context, request, answer)
            : gradeInWorkspace(context, request, answer, workspace);
        const result = graded instanceof Promise ? await graded : graded;
        reporting.add(emit(result, planned));
        if (reporting.size >= EMIT_WINDOW) await reporting.settled();
      }
      await reporting.settled();
    };
    const graders = Math.max(1, Math.min(gradeConcurrency, cases.length));
    await Promise.all(Array.from({ length: graders }, grader));
    return;
  }
  const first = cases[0];
  const lastError = failureMessage(
    outcome.error,
    outcome.attempts,
    first === undefined ? undefined : { planned: first, run, started },
  );
  let error =
    cases.length === 1 ? lastError : `batch of ${cases.length} cases failed: ${lastError}`;
  if (error.length > CASE_ERROR_CHARS) {
    // Every case carries the error; a long one (thousands of missing ids) would make the
    // result file grow with the square of the batch. The whole text is printed once.
    options.onWarning?.(error);
    error = `${error.slice(0, CASE_ERROR_CHARS)}… (cut here; the whole batch error was printed once as a warning)`;
  }
  for (const [index, planned] of cases.entries()) {
    const failed = errorResult(
      { planned, run, started },
      outcome.attempts,
      error,
      classifyFailure(outcome.error),
    );
    const workspace = held[index];
    await emit(
      workspace === undefined
        ? failed
        : await workspace.finish(failed, await changesIfKnown(workspace)),
      planned,
    );
  }
}

/** Grades a case's answer in its workspace and gives the workspace back. */
async function gradeInWorkspace(
  context: CaseContext,
  request: ProviderRequest,
  answer: Answer,
  held: HeldWorkspace,
): Promise<EvaluationResult> {
  const workspace = await workspaceForGraders(context, held, answer.attempts);
  if ('error' in workspace) return workspace.error;
  return held.finish(await gradeAnswer(context, request, answer, workspace), workspace.changes);
}

/**
 * The results one grader reported that have not settled yet: one handler per result, where
 * an array of promises and `Promise.all` took two (and a `catch` so that a failure waiting for
 * it did not count as unhandled). `settled` rethrows the first failure.
 */
class Reporting {
  size = 0;
  private failure: { error: unknown } | undefined;
  private onSettled: (() => void) | undefined;
  private readonly done = () => {
    if (--this.size === 0) this.onSettled?.();
  };
  private readonly failed = (error: unknown) => {
    this.failure ??= { error };
    this.done();
  };

  add(reported: void | PromiseLike<void>): void {
    if (reported === undefined || typeof reported.then !== 'function') return;
    this.size++;
    reported.then(this.done, this.failed);
  }

  /** Resolves once every result added has settled; rejects with the first failure. */
  async settled(): Promise<void> {
    if (this.size > 0) {
      await new Promise<void>((resolve) => {
        this.onSettled = resolve;
      });
      this.onSettled = undefined;
    }
    if (this.failure !== undefined) throw this.failure.error;
  }
}

async function callBatch(
  provider: Provider,
  requests: readonly ProviderRequest[],
  attempt: number,
): Promise<ProviderResponse[]> {
  // The provider gets an array (and, on a retry, requests) of its own: it may keep them.
  const sent =
    attempt === 0 ? requests.slice() : requests.map((request) => ({ ...request, attempt }));
  const responses = await provider.invokeBatch!(sent);
  if (responses.length !== sent.length) {
    // A provider bug, not something a retry fixes.
    throw new ProviderError(
      `provider "${provider.id}" returned ${responses.length} responses for a batch of ${sent.length} cases`,
      { retryable: false },
    );
  }
  return responses;
}
