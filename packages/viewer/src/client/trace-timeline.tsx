import { asText, duration } from './format.js';

interface TraceEvent {
  type: string;
  timestamp: string;
  id?: string;
  name?: string;
  input?: unknown;
  output?: unknown;
  text?: string;
  metadata?: Record<string, unknown>;
}

interface Step {
  kind: string;
  name: string;
  start: number;
  end: number;
  input: unknown;
  output: unknown;
  text: string | undefined;
  tokens: string | undefined;
}

/**
 * Pairs each tool call with its result (by id, else the next result of the same tool), so a
 * step has a duration; model steps show their tokens when the agent reported them.
 */
export function traceSteps(events: TraceEvent[]): Step[] {
  const steps: Step[] = [];
  const open: Step[] = [];
  for (const event of events) {
    const time = Date.parse(event.timestamp);
    const at = Number.isNaN(time) ? 0 : time;
    if (event.type === 'tool_result') {
      const match =
        open.find(
          (step) => event.id !== undefined && (step as Step & { id?: string }).id === event.id,
        ) ?? open.find((step) => step.name === (event.name ?? ''));
      if (match !== undefined) {
        match.end = at;
        match.output = event.output;
        open.splice(open.indexOf(match), 1);
        continue;
      }
    }
    const step: Step & { id?: string } = {
      kind: event.type,
      name: event.name ?? '',
      start: at,
      end: at,
      input: event.input,
      output: event.output,
      text: event.text,
      tokens: tokensOf(event.metadata),
    };
    if (event.id !== undefined) step.id = event.id;
    steps.push(step);
    if (event.type === 'tool_call') open.push(step);
  }
  return steps;
}

function tokensOf(metadata: Record<string, unknown> | undefined): string | undefined {
  if (metadata === undefined) return undefined;
  const usage = (metadata.usage ?? metadata.tokens ?? metadata) as Record<string, unknown>;
  const parts = Object.entries(usage)
    .filter(([key, value]) => /token/i.test(key) && typeof value === 'number')
    .map(([key, value]) => `${key.replace(/_?tokens?/i, '') || 'tokens'} ${value}`);
  return parts.length === 0 ? undefined : parts.join(' · ');
}

export function TraceTimeline({ events }: { events: TraceEvent[] }) {
  const steps = traceSteps(events);
  const start = Math.min(...steps.map((step) => step.start));
  const end = Math.max(...steps.map((step) => step.end));
  const span = Math.max(1, end - start);
  return (
    <ol class="timeline" data-testid="timeline">
      {steps.map((step, index) => (
        <li class={`step ${step.kind}`} key={index}>
          <details>
            <summary>
              <span class={`kind ${step.kind}`}>{step.kind.replace('_', ' ')}</span>
              <span class="step-name">{step.name}</span>
              <span class="step-time">
                +{duration(step.start - start)}
                {step.end > step.start ? ` · ${duration(step.end - step.start)}` : ''}
              </span>
              {step.tokens ? <span class="step-tokens">{step.tokens}</span> : null}
              <span class="step-bar" aria-hidden="true">
                <span
                  style={{
                    left: `${((step.start - start) / span) * 100}%`,
                    width: `${Math.max(0.5, ((step.end - step.start) / span) * 100)}%`,
                  }}
                />
              </span>
            </summary>
            {step.text !== undefined ? <pre class="text">{step.text}</pre> : null}
            {step.input !== undefined ? (
              <>
                <h4>Input</h4>
                <pre class="text">{asText(step.input)}</pre>
              </>
            ) : null}
            {step.output !== undefined ? (
              <>
                <h4>Output</h4>
                <pre class="text">{asText(step.output)}</pre>
              </>
            ) : null}
          </details>
        </li>
      ))}
    </ol>
  );
}
