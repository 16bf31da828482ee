import type { CaseBudget } from '../eval-file/eval-case.js';
import type { TokenUsage } from '../provider/provider-response.js';
import { addTokenUsage } from '../provider/token-usage.js';

/** Why a case went over its budget, with the measured value: `cost $0.62 > max_cost_usd $0.50`. */
export type BudgetOverrun = string;

/** What a case spent answering, all attempts together, as far as it is known. */
export interface CaseSpend {
  usage?: TokenUsage | undefined;
  costUsd?: number | undefined;
  durationMs: number;
}

/** `a` and `b` together: a conversation's turns so far and the running one. */
export function addSpend(a: CaseSpend, b: CaseSpend): CaseSpend {
  const costUsd =
    a.costUsd === undefined && b.costUsd === undefined
      ? undefined
      : (a.costUsd ?? 0) + (b.costUsd ?? 0);
  return {
    usage: addTokenUsage(a.usage, b.usage),
    costUsd,
    durationMs: a.durationMs + b.durationMs,
  };
}

/** The first limit of `budget` that `spend` crossed; undefined within it (or without a budget). */
export function budgetOverrun(
  budget: CaseBudget | undefined,
  spend: CaseSpend,
): BudgetOverrun | undefined {
  if (budget === undefined) return undefined;
  if (budget.maxCostUsd !== undefined && (spend.costUsd ?? 0) > budget.maxCostUsd) {
    return `cost $${round(spend.costUsd!)} > max_cost_usd $${budget.maxCostUsd}`;
  }
  const tokens = tokensOf(spend.usage);
  if (budget.maxTokens !== undefined && tokens > budget.maxTokens) {
    return `${tokens} tokens > max_tokens ${budget.maxTokens}`;
  }
  if (
    budget.maxDurationSeconds !== undefined &&
    spend.durationMs > budget.maxDurationSeconds * 1000
  ) {
    return `${round(spend.durationMs / 1000)} s > max_duration_seconds ${budget.maxDurationSeconds}`;
  }
  return undefined;
}

/** Input + output tokens (`totalTokens` when only that is reported). */
export function tokensOf(usage: TokenUsage | undefined): number {
  if (usage === undefined) return 0;
  const split = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
  return split > 0 ? split : (usage.totalTokens ?? 0);
}

function round(value: number): string {
  return String(Math.round(value * 10_000) / 10_000);
}

/**
 * The signal a case's provider calls get when the case has a budget: aborted when the run's
 * signal is, when `max_duration_seconds` passes, or when usage reported as it goes
 * (`ProviderRequest.onUsage`) crosses `max_tokens` or `max_cost_usd`. `overrun` then says
 * which limit; it stays undefined when the run itself was stopped. For a turn of a
 * conversation, `earlier` is what the turns before it spent: the limits hold for them together.
 */
export class CaseBudgetGuard {
  readonly signal: AbortSignal;
  overrun: BudgetOverrun | undefined;
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private readonly started = Date.now();
  private usage: TokenUsage | undefined;
  private costUsd: number | undefined;
  private readonly stopWithRun: (() => void) | undefined;

  constructor(
    private readonly budget: CaseBudget,
    private readonly runSignal: AbortSignal | undefined,
    private readonly earlier: CaseSpend = { durationMs: 0 },
  ) {
    this.signal = this.controller.signal;
    if (runSignal !== undefined) {
      if (runSignal.aborted) this.controller.abort(runSignal.reason);
      this.stopWithRun = () => this.controller.abort(runSignal.reason);
      runSignal.addEventListener('abort', this.stopWithRun, { once: true });
    }
    if (budget.maxDurationSeconds !== undefined) {
      this.armTimer(budget.maxDurationSeconds * 1000 - earlier.durationMs);
    }
  }

  /**
   * Checks the budget once `leftMs` have passed. Node arms a timer from the event loop's cached
   * time, which lags on a busy loop, so the check can come a little early: the budget not yet
   * spent, it is armed again for what is left.
   */
  private armTimer(leftMs: number): void {
    this.timer = setTimeout(() => {
      this.check();
      if (this.controller.signal.aborted || this.budget.maxDurationSeconds === undefined) return;
      const spent = this.earlier.durationMs + (Date.now() - this.started);
      this.armTimer(this.budget.maxDurationSeconds * 1000 - spent);
    }, Math.max(0, leftMs) + 1);
    this.timer.unref();
  }

  /** What the running call has spent so far (running totals of that call), as its provider reports it. */
  report(usage: TokenUsage | undefined, costUsd: number | undefined): void {
    this.usage = usage;
    this.costUsd = costUsd;
    this.check();
  }

  private check(): void {
    if (this.controller.signal.aborted) return;
    const overrun = budgetOverrun(
      this.budget,
      addSpend(this.earlier, {
        usage: this.usage,
        costUsd: this.costUsd,
        durationMs: Date.now() - this.started,
      }),
    );
    if (overrun === undefined) return;
    this.overrun = overrun;
    this.controller.abort(new Error(`the case went over its budget: ${overrun}`));
  }

  /** The running totals last reported (`report`): what a stopped call had spent. */
  spent(): { usage?: TokenUsage; costUsd?: number } {
    const spent: { usage?: TokenUsage; costUsd?: number } = {};
    if (this.usage !== undefined) spent.usage = this.usage;
    if (this.costUsd !== undefined) spent.costUsd = this.costUsd;
    return spent;
  }

  /** Stops the timer and lets go of the run's signal. */
  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.stopWithRun !== undefined) {
      this.runSignal?.removeEventListener('abort', this.stopWithRun);
    }
  }
}
