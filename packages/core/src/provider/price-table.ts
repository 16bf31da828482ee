/** A model's price in USD per million tokens. */
export interface ModelPricing {
  inputPerMtok: number;
  outputPerMtok: number;
}

/**
 * Approximate list prices in USD per million tokens (input, output) of common
 * models, as published by their vendors in 2025. Cached-input discounts and
 * batch prices are ignored, so costs are estimates; set `pricing` on an LLM target
 * for exact numbers or for models not listed here. Shared by every provider that reports tokens
 * without a cost (LLM providers, coding agents).
 */
export const PRICE_TABLE: Readonly<Record<string, readonly [number, number]>> = {
  'gpt-5': [1.25, 10],
  'gpt-5-mini': [0.25, 2],
  'gpt-5-nano': [0.05, 0.4],
  'gpt-4.1': [2, 8],
  'gpt-4.1-mini': [0.4, 1.6],
  'gpt-4.1-nano': [0.1, 0.4],
  'gpt-4o': [2.5, 10],
  'gpt-4o-mini': [0.15, 0.6],
  'gpt-4-turbo': [10, 30],
  'gpt-3.5-turbo': [0.5, 1.5],
  o1: [15, 60],
  o3: [2, 8],
  'o3-mini': [1.1, 4.4],
  'o4-mini': [1.1, 4.4],
  'claude-opus-4-5': [5, 25],
  'claude-opus-4-1': [15, 75],
  'claude-opus-4': [15, 75],
  'claude-sonnet-4-5': [3, 15],
  'claude-sonnet-4': [3, 15],
  'claude-haiku-4-5': [1, 5],
  'claude-3-7-sonnet': [3, 15],
  'claude-3-5-sonnet': [3, 15],
  'claude-3-5-haiku': [0.8, 4],
  'claude-3-haiku': [0.25, 1.25],
  'claude-3-opus': [15, 75],
  'gemini-2.5-pro': [1.25, 10],
  'gemini-2.5-flash': [0.3, 2.5],
  'gemini-2.5-flash-lite': [0.1, 0.4],
  'gemini-2.0-flash': [0.1, 0.4],
  'gemini-2.0-flash-lite': [0.075, 0.3],
  'gemini-1.5-pro': [1.25, 5],
  'gemini-1.5-flash': [0.075, 0.3],
};

// What may follow a listed name and still be the same model: a date or version stamp, `-latest`.
const VERSION_SUFFIX = /^(-latest|-\d{4}-\d{2}-\d{2}|-\d{8}|-\d{3}|-v\d+(:\d+)?)?$/;

/** The table's price of `model` (a vendor prefix such as `openai/` is ignored); undefined when unlisted. */
export function lookupPrice(model: string): ModelPricing | undefined {
  const id = model.trim().toLowerCase().replace(/^.*\//, '');
  let best: string | undefined;
  for (const name of Object.keys(PRICE_TABLE)) {
    if (!id.startsWith(name) || !VERSION_SUFFIX.test(id.slice(name.length))) continue;
    if (best === undefined || name.length > best.length) best = name;
  }
  if (best === undefined) return undefined;
  const [inputPerMtok, outputPerMtok] = PRICE_TABLE[best]!;
  return { inputPerMtok, outputPerMtok };
}

/**
 * The cost in USD of a call, from the target's `pricing` or else the table;
 * undefined when the model's price is unknown or the call reported no tokens.
 */
export function estimateCostUsd(
  model: string,
  tokens: { inputTokens?: number; outputTokens?: number },
  pricing?: ModelPricing,
): number | undefined {
  const price = pricing ?? lookupPrice(model);
  if (price === undefined) return undefined;
  if (tokens.inputTokens === undefined && tokens.outputTokens === undefined) return undefined;
  const cost =
    ((tokens.inputTokens ?? 0) * price.inputPerMtok +
      (tokens.outputTokens ?? 0) * price.outputPerMtok) /
    1_000_000;
  // Rounded so sums of float products do not print as 0.30000000000000004.
  return Math.round(cost * 1e10) / 1e10;
}
