/** A tool call made by the agent inside one of its output messages. */
export interface ToolCall {
  tool: string;
  input?: unknown;
  output?: unknown;
  id?: string;
}

/**
 * A message the agent produced, in camelCase. The wire format (`output_messages`,
 * `tool_calls`) is converted to this shape by the provider that reads it.
 */
export interface OutputMessage {
  role: string;
  name?: string;
  content?: unknown;
  toolCalls?: ToolCall[];
}
