#!/usr/bin/env node
// A small weather agent on the Vercel AI SDK: it answers the question given as its first
// argument, calling a `get_weather` tool, with the AI SDK's own telemetry turned on. The model is
// any OpenAI-compatible server at OPENAI_BASE_URL (the example's fake-model.mjs offline).
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { startTracing } from './tracing.mjs';

const FORECASTS = { Paris: 'sunny, 21 °C', Oslo: 'snow, -3 °C', Lima: 'cloudy, 17 °C' };

const { tracer, shutdown } = startTracing('weather-agent');
const openai = createOpenAI({
  baseURL: process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
  apiKey: process.env.OPENAI_API_KEY ?? 'not-needed-for-the-fake-model',
});

try {
  const { text } = await generateText({
    model: openai.chat(process.env.WEATHER_MODEL ?? 'gpt-4o-mini'),
    system: 'You answer weather questions. Look the weather up with get_weather.',
    prompt: process.argv[2] ?? 'What is the weather in Paris?',
    tools: {
      get_weather: tool({
        description: 'The current weather of a city',
        inputSchema: jsonSchema({
          type: 'object',
          properties: { city: { type: 'string' } },
          required: ['city'],
        }),
        execute: async ({ city }) => ({ city, forecast: FORECASTS[city] ?? 'unknown' }),
      }),
    },
    stopWhen: stepCountIs(4),
    experimental_telemetry: { isEnabled: true, functionId: 'weather-agent', tracer },
  });
  process.stdout.write(`${text}\n`);
} finally {
  await shutdown();
}
