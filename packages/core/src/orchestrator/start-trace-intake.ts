import { AgentvError } from '../errors/agentv-error.js';
import type { TraceIntake } from '../provider/trace-intake.js';
import type { RunState } from './run-state.js';

/**
 * Before the first case of a run with a `trace: { source: otlp }` target: starts
 * the receiver and returns it (the run closes it at its end); undefined when no
 * planned target asks for one. A run that needs one and has none stops here.
 */
export async function startTraceIntake(run: RunState): Promise<TraceIntake | undefined> {
  const { options } = run;
  const traced = options.plan.targets.find((target) => target.trace?.source === 'otlp');
  if (traced === undefined) return undefined;
  const intake = options.traceIntake;
  if (intake === undefined) {
    throw new AgentvError(
      `target "${traced.name}" (${traced.filePath}) says trace: { source: otlp }, but the run has no OTLP receiver`,
      {
        hint: 'pass `traceIntake: createTraceIntake()` (from @agentv/otel) to runEvaluation; `agentv eval` does it for you',
      },
    );
  }
  await intake.start();
  return intake;
}
