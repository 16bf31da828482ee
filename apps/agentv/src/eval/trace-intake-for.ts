import type { RunPlan } from '@agentv/core';
import type { TraceIntake } from '@agentv/core/provider-utils';

/**
 * The OTLP receiver of a run with a `trace: { source: otlp }` target:
 * `@agentv/otel`'s, loaded only then. It listens once the run starts it.
 */
export async function traceIntakeFor(
  plan: RunPlan,
  env: Readonly<Record<string, string | undefined>>,
): Promise<TraceIntake | undefined> {
  if (!plan.targets.some((target) => target.trace?.source === 'otlp')) return undefined;
  const { createTraceIntake } = await import('@agentv/otel');
  return createTraceIntake({ env });
}
