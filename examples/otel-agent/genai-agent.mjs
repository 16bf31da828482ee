#!/usr/bin/env node
// A program instrumented by hand with the OpenTelemetry SDK and the GenAI semantic
// conventions, as LangChain, LlamaIndex or the OpenAI instrumentations record an agent: an
// `invoke_agent` span, a `chat` span with token usage and an `execute_tool` span per tool call.
// It continues the trace named by TRACEPARENT, as W3C trace context says a child process should.
import { context, propagation, SpanStatusCode } from '@opentelemetry/api';
import { startTracing } from './tracing.mjs';

const { tracer, shutdown } = startTracing('genai-agent');
const parent = propagation.extract(context.active(), { traceparent: process.env.TRACEPARENT });
const question = process.argv[2] ?? '';
const city = /in (\w+)/.exec(question)?.[1] ?? 'Paris';

await context.with(parent, () =>
  tracer.startActiveSpan(
    'invoke_agent weather',
    { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'weather' } },
    async (agent) => {
      const chat = tracer.startSpan('chat gpt-4o-mini', {
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.usage.input_tokens': 42,
          'gen_ai.usage.output_tokens': 7,
        },
      });
      chat.end();
      await tracer.startActiveSpan(
        'execute_tool get_weather',
        {
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'get_weather',
            'gen_ai.tool.call.id': 'call_1',
            'gen_ai.tool.call.arguments': JSON.stringify({ city }),
          },
        },
        async (span) => {
          span.setAttribute('gen_ai.tool.call.result', JSON.stringify({ forecast: 'sunny' }));
          span.end();
        },
      );
      if (city === 'Atlantis') {
        const lookup = tracer.startSpan('execute_tool find_city', {
          attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'find_city' },
        });
        lookup.setStatus({ code: SpanStatusCode.ERROR, message: 'no such city: Atlantis' });
        lookup.end();
      }
      agent.end();
    },
  ),
);
await shutdown();
process.stdout.write(`It is sunny in ${city}.\n`);
