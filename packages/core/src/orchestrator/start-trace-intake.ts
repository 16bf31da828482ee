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
  const ports = new Map<number, string>();
  for (const target of options.plan.targets) {
    const port = target.trace?.source === 'otlp' ? target.trace.port : undefined;
    if (port !== undefined && !ports.has(port)) ports.set(port, target.name);
  }
  if (ports.size > 1) {
    const named = [...ports].map(([port, name]) => `"${name}" port ${port}`).join(', ');
    throw new AgentvError(
      `the run's targets name different OTLP receiver ports (${named}); a run has one receiver`,
      {
        hint: 'give the traced targets of one run the same trace.port, or leave it out (a free port)',
      },
    );
  }
  const [port] = ports.keys();
  await intake.start(port === undefined ? {} : { port });
  return intake;
}
