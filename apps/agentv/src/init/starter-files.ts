/** A file `agentv init` writes: its path relative to the project folder, with `/` separators. */
export interface StarterFile {
  path: string;
  content: string;
}

/** Where the editor schema of each YAML starter file is (a relative path or URL). */
export interface SchemaReferences {
  targets: string;
  config: string;
  eval: string;
}

/** The agent the starter target runs; also named in the eval file's comments. */
export const EXAMPLE_AGENT_PATH = 'agents/example-agent.mjs';
export const EXAMPLE_EVAL_PATH = 'evals/example.yaml';

/**
 * The starter project: a targets file with a `cli` target named `default`
 * (commented-out `codex`, `claude-code`, `gemini-cli`, `opencode` and `copilot-cli` targets, and a commented-out `openai-compatible` target reading `.env`, with the provider, model and key
 * variable of every other LLM kind), a config file, an offline example agent and an eval file
 * whose cases that agent passes.
 */
export function starterFiles(schemas: SchemaReferences): StarterFile[] {
  return [
    { path: '.agentv/targets.yaml', content: targetsYaml(schemas.targets) },
    { path: '.agentv/config.yaml', content: configYaml(schemas.config) },
    { path: '.agentv/.gitignore', content: GITIGNORE },
    { path: EXAMPLE_AGENT_PATH, content: EXAMPLE_AGENT },
    { path: EXAMPLE_EVAL_PATH, content: evalYaml(schemas.eval) },
  ];
}

const targetsYaml = (schema: string) => `# yaml-language-server: $schema=${schema}
# Targets: the agents and models your eval cases run against. \`agentv eval\`
# finds this file by walking up from the eval file's folder.
$schema: agentv-targets-v2.2
targets:
  # Runs a command per case. AgentV fills in each {PLACEHOLDER} and shell-quotes
  # it (write no quotes yourself); the agent writes its answer to {OUTPUT_FILE}
  # as plain text or as JSON {"text": "...", "trace": [...]}. The command runs in
  # cwd, which is relative to the folder of the eval file being run (evals/), so
  # \`..\` is this project's folder.
  - name: default
    provider: cli
    cwd: ..
    command_template: node ${EXAMPLE_AGENT_PATH} --prompt {PROMPT} --out {OUTPUT_FILE}
    timeout_seconds: 30
    max_retries: 0

  # A coding agent: the real Codex CLI runs in each case's workspace with a config
  # home of the run's own; its tool calls reach the trace with canonical names
  # (shell, edit_file, …). Install it (npm i -g @openai/codex), put
  # OPENAI_API_KEY=sk-... in .env and uncomment ("Coding agents" in the AgentV
  # README has every setting):
  # - name: codex
  #   provider: codex
  #   model: gpt-5-codex
  #   api_key: \${{ OPENAI_API_KEY }}
  #   timeout_seconds: 600

  # Claude Code, the same way (npm i -g @anthropic-ai/claude-code,
  # ANTHROPIC_API_KEY=sk-ant-... in .env; your ~/.claude login is not used):
  # - name: claude
  #   provider: claude-code
  #   model: claude-sonnet-4-5
  #   api_key: \${{ ANTHROPIC_API_KEY }}
  #   timeout_seconds: 600

  # Gemini CLI, the same way (npm i -g @google/gemini-cli,
  # GEMINI_API_KEY=... in .env; your ~/.gemini settings and login are not used):
  # - name: gemini
  #   provider: gemini-cli
  #   model: gemini-2.5-flash
  #   api_key: \${{ GEMINI_API_KEY }}
  #   timeout_seconds: 600

  # opencode, the same way (npm i -g opencode-ai, OPENAI_API_KEY=sk-... in .env;
  # with base_url, any server speaking OpenAI chat completions serves the model):
  # - name: opencode
  #   provider: opencode
  #   model: gpt-5
  #   api_key: \${{ OPENAI_API_KEY }}
  #   timeout_seconds: 600

  # GitHub Copilot CLI, the same way (npm i -g @github/copilot, a GitHub token
  # with the "Copilot Requests" permission as GH_TOKEN=... in .env; your
  # ~/.copilot login is not used; with base_url, a model server of your own
  # serves the model instead, without GitHub):
  # - name: copilot
  #   provider: copilot-cli
  #   model: gpt-5
  #   api_key: \${{ GH_TOKEN }}
  #   timeout_seconds: 600

  # An LLM target: any server speaking OpenAI chat completions (OpenAI itself,
  # vLLM, Ollama, LM Studio, llama.cpp server). To use it, put these lines in a
  # .env file in this folder (\${{ NAME }} reads an environment variable; keep
  # .env out of version control), uncomment the target, and run
  # \`agentv eval --target llm evals/example.yaml\`:
  #   OPENAI_BASE_URL=https://api.openai.com/v1   (Ollama: http://127.0.0.1:11434/v1)
  #   OPENAI_API_KEY=sk-...                       (local servers: any text)
  #   OPENAI_MODEL=gpt-4o-mini
  # Answers are cached in .agentv/cache/ (\`--no-cache\` asks again).
  # Other model APIs take the same keys with their own provider, model and key
  # variable ("LLM targets" in the AgentV README has every setting):
  #   provider: openai      model: gpt-4o-mini              api_key: \${{ OPENAI_API_KEY }}
  #   provider: azure       deployment: gpt-4o-mini         api_key: \${{ AZURE_OPENAI_API_KEY }}
  #                         endpoint: https://my-resource.openai.azure.com
  #   provider: anthropic   model: claude-sonnet-4-5        api_key: \${{ ANTHROPIC_API_KEY }}
  #   provider: gemini      model: gemini-2.5-flash         api_key: \${{ GOOGLE_GENERATIVE_AI_API_KEY }}
  #   provider: vertex      model: gemini-2.5-flash         api_key: \${{ GOOGLE_VERTEX_API_KEY }}
  #                         or project: my-project and location: us-central1 after
  #                         \`gcloud auth application-default login\`
  #   provider: bedrock     model: amazon.nova-lite-v1:0    api_key: \${{ AWS_BEARER_TOKEN_BEDROCK }}
  #                         region: us-east-1, or access_key_id: \${{ AWS_ACCESS_KEY_ID }} and
  #                         secret_access_key: \${{ AWS_SECRET_ACCESS_KEY }} instead of api_key
  #   provider: mistral     model: mistral-large-latest     api_key: \${{ MISTRAL_API_KEY }}
  #   provider: groq        model: llama-3.3-70b-versatile  api_key: \${{ GROQ_API_KEY }}
  #   provider: xai         model: grok-4                   api_key: \${{ XAI_API_KEY }}
  #   provider: deepseek    model: deepseek-chat            api_key: \${{ DEEPSEEK_API_KEY }}
  #   provider: openrouter  model: openai/gpt-4o-mini       api_key: \${{ OPENROUTER_API_KEY }}
  # - name: llm
  #   provider: openai-compatible
  #   base_url: \${{ OPENAI_BASE_URL }}
  #   api_key: \${{ OPENAI_API_KEY }}
  #   model: \${{ OPENAI_MODEL }}
  #   max_retries: 2
`;

const configYaml = (schema: string) => `# yaml-language-server: $schema=${schema}
# Project settings for AgentV.
$schema: agentv-config-v2
# Files attached to a case that match these globs are guidelines: they go to
# the agent as instructions ({GUIDELINES}) instead of as part of the question.
guideline_patterns:
  - "**/*.instructions.md"
  - "**/instructions/**"
  - "**/*.prompt.md"
  - "**/prompts/**"
# Eval files and datasets may name files only inside this project (the folder
# holding .agentv/). List other folders they may read from here, relative to
# this project or absolute:
# allowed_file_roots: [../shared-fixtures]
`;

const GITIGNORE = `# Written by agentv eval; keep them out of version control.
results/
traces/
prompts/
cache/
`;

const EXAMPLE_AGENT = `#!/usr/bin/env node
// An example agent for AgentV: it answers support questions offline and
// reports the tools it "called" as a trace. Replace it with your own agent;
// AgentV only needs a command that reads --prompt and writes --out.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { prompt: { type: 'string' }, out: { type: 'string' } } });
const question = (values.prompt ?? '').toLowerCase();
const trace = [];
const now = () => new Date().toISOString();

function lookupOrder(id) {
  const order = { id, status: id === 42 ? 'shipped' : 'processing' };
  trace.push({ type: 'tool_call', timestamp: now(), name: 'lookupOrder', input: { id } });
  trace.push({ type: 'tool_result', timestamp: now(), name: 'lookupOrder', output: order });
  return order;
}

let text = 'Sorry, I can help with opening hours and orders.';
const orderId = /order\\s*#?(\\d+)/.exec(question)?.[1];
if (orderId) {
  const order = lookupOrder(Number(orderId));
  text = \`Order \${order.id} is \${order.status}.\`;
} else if (question.includes('open')) {
  text = 'We are open Monday to Friday, 9am to 5pm.';
}
writeFileSync(values.out, JSON.stringify({ text, trace }));
`;

const evalYaml = (schema: string) => `# yaml-language-server: $schema=${schema}
# An example eval. Check it with \`agentv validate\` and run it with
# \`agentv eval ${EXAMPLE_EVAL_PATH}\`; results go to .agentv/results/.
$schema: agentv-eval-v2
description: Support questions for the example agent
execution:
  target: default # a target in .agentv/targets.yaml

evalcases:
  - id: opening-hours
    expected_outcome: The agent states the opening hours.
    input_messages:
      - role: user
        content: When are you open?
    evaluators:
      - { name: mentions-hours, type: contains, value: 9am }

  - id: order-status
    expected_outcome: The agent looks order 42 up and says it has shipped.
    input_messages:
      - role: system
        content: You are a support agent for an online shop.
      - role: user
        content: Where is my order 42?
    expected_messages:
      - role: assistant
        tool_calls:
          - { tool: lookupOrder, input: { id: 42 } }
        content: Order 42 is shipped.
    evaluators:
      # The trace must show the lookup, with these inputs.
      - name: looked-up
        type: tool_trajectory
        mode: in_order
        expected:
          - { tool: lookupOrder, input: { id: 42 } }
      - { name: says-shipped, type: regex, pattern: "\\\\bshipped\\\\b" }
`;
