import type { ProviderMetadata } from 'ai';

/**
 * What the service says a call cost in USD, for services that report it with the answer
 * (OpenRouter's `usage.cost`, in credits of one US dollar); undefined for the others.
 */
export function reportedCostUsd(metadata: ProviderMetadata | undefined): number | undefined {
  const usage = metadata?.openrouter?.usage;
  const cost =
    typeof usage === 'object' && usage !== null && !Array.isArray(usage)
      ? (usage as { cost?: unknown }).cost
      : undefined;
  return typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? cost : undefined;
}
