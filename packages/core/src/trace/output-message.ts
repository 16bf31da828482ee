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

/** An output message as written in result files and judge payloads: snake_case `tool_calls`. */
export interface OutputMessageRecord {
  role: string;
  name?: string;
  content?: unknown;
  tool_calls?: ToolCall[];
}

/** `message` in the wire format (`OutputMessageRecord`); absent fields stay absent. */
export function outputMessageRecord(message: OutputMessage): OutputMessageRecord {
  return {
    role: message.role,
    ...(message.name === undefined ? {} : { name: message.name }),
    ...(message.content === undefined ? {} : { content: message.content }),
    ...(message.toolCalls === undefined ? {} : { tool_calls: message.toolCalls }),
  };
}
