import type { Reply } from './llm-server.js';

// Answers of the services that joined the AI SDK kinds later, as each service sends them: the
// same 12 input tokens (4 read from the prompt cache where the service reports that) and 5
// output tokens, in each one's own usage fields.

const created = 1_700_000_000;

/** A chat completions choice with `text`, the shape every chat completions service shares. */
const choice = (text: string, message: Record<string, unknown> = {}) => ({
  index: 0,
  message: { role: 'assistant', content: text, ...message },
  finish_reason: 'stop',
});

/** An Amazon Bedrock Converse answer (`POST /model/{modelId}/converse`). */
export function bedrockConverseReply(text: string): Reply {
  return {
    status: 200,
    headers: { 'x-amzn-requestid': '5b7c0b5e-0000-4000-8000-000000000001' },
    body: {
      output: { message: { role: 'assistant', content: [{ text }] } },
      stopReason: 'end_turn',
      // Bedrock counts input tokens read from or written to the prompt cache apart.
      usage: {
        inputTokens: 8,
        outputTokens: 5,
        totalTokens: 17,
        cacheReadInputTokens: 4,
        cacheWriteInputTokens: 0,
      },
      metrics: { latencyMs: 312 },
    },
  };
}

/** A Vertex AI generateContent answer (Gemini's shape, with Vertex's extra usage fields). */
export function vertexReply(text: string): Reply {
  return {
    status: 200,
    body: {
      candidates: [
        { content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', avgLogprobs: -0.1 },
      ],
      usageMetadata: {
        promptTokenCount: 12,
        candidatesTokenCount: 5,
        totalTokenCount: 17,
        cachedContentTokenCount: 4,
        trafficType: 'ON_DEMAND',
        promptTokensDetails: [{ modality: 'TEXT', tokenCount: 12 }],
        candidatesTokensDetails: [{ modality: 'TEXT', tokenCount: 5 }],
      },
      modelVersion: 'gemini-2.5-flash',
      createTime: '2025-06-01T12:00:00.000000Z',
      responseId: 'vtx-response-1',
    },
  };
}

/** A Mistral chat completions answer. */
export function mistralReply(text: string): Reply {
  return {
    status: 200,
    body: {
      id: 'cmpl-e7c5f0a1',
      object: 'chat.completion',
      created,
      model: 'mistral-large-latest',
      choices: [choice(text, { tool_calls: null, prefix: false })],
      usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
    },
  };
}

/** A Groq chat completions answer, with Groq's timings and `x_groq`. */
export function groqReply(text: string): Reply {
  return {
    status: 200,
    body: {
      id: 'chatcmpl-groq-1',
      object: 'chat.completion',
      created,
      model: 'llama-3.3-70b-versatile',
      choices: [{ ...choice(text), logprobs: null }],
      usage: {
        queue_time: 0.021,
        prompt_tokens: 12,
        prompt_time: 0.002,
        completion_tokens: 5,
        completion_time: 0.004,
        total_tokens: 17,
        total_time: 0.006,
        prompt_tokens_details: { cached_tokens: 4 },
      },
      system_fingerprint: 'fp_9a8b7c6d5e',
      x_groq: { id: 'req_01groq' },
      service_tier: 'on_demand',
    },
  };
}

/** An xAI chat completions answer: reasoning tokens are counted apart from `completion_tokens`. */
export function xaiReply(text: string): Reply {
  return {
    status: 200,
    body: {
      id: 'xai-chat-1',
      object: 'chat.completion',
      created,
      model: 'grok-4-0709',
      choices: [choice(text, { refusal: null })],
      usage: {
        prompt_tokens: 12,
        completion_tokens: 5,
        total_tokens: 20,
        prompt_tokens_details: {
          text_tokens: 12,
          audio_tokens: 0,
          image_tokens: 0,
          cached_tokens: 4,
        },
        completion_tokens_details: {
          reasoning_tokens: 3,
          audio_tokens: 0,
          accepted_prediction_tokens: 0,
          rejected_prediction_tokens: 0,
        },
        num_sources_used: 0,
      },
      system_fingerprint: 'fp_grok4',
    },
  };
}

/** A DeepSeek chat completions answer, with its prompt-cache hit and miss counts. */
export function deepseekReply(text: string): Reply {
  return {
    status: 200,
    body: {
      id: 'ds-chat-1',
      object: 'chat.completion',
      created,
      model: 'deepseek-chat',
      choices: [{ ...choice(text), logprobs: null }],
      usage: {
        prompt_tokens: 12,
        completion_tokens: 5,
        total_tokens: 17,
        prompt_tokens_details: { cached_tokens: 4 },
        prompt_cache_hit_tokens: 4,
        prompt_cache_miss_tokens: 8,
      },
      system_fingerprint: 'fp_deepseek',
    },
  };
}

/** What the OpenRouter answers below say the call cost, in USD. */
export const OPENROUTER_COST_USD = 0.0000123;

/** An OpenRouter chat completions answer, with the cost OpenRouter charged. */
export function openrouterReply(text: string): Reply {
  return {
    status: 200,
    body: {
      id: 'gen-1700000000-abc',
      provider: 'OpenAI',
      model: 'openai/gpt-4o-mini',
      object: 'chat.completion',
      created,
      choices: [
        {
          ...choice(text, { refusal: null, reasoning: null }),
          logprobs: null,
          native_finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 12,
        completion_tokens: 5,
        total_tokens: 17,
        cost: OPENROUTER_COST_USD,
        is_byok: false,
        prompt_tokens_details: { cached_tokens: 4 },
        cost_details: { upstream_inference_cost: null },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    },
  };
}
