import { fileURLToPath } from 'node:url';
import { shellQuote } from '@agentv/core/provider-utils';

/** Absolute path of the fake agent script. */
export const FAKE_AGENT = fileURLToPath(new URL('./fake-agent.mjs', import.meta.url));

/** The start of a command template that runs the fake agent in `mode` with this Node. */
export function fakeAgentCommand(mode: string): string {
  return `${shellQuote(process.execPath)} ${shellQuote(FAKE_AGENT)} ${mode}`;
}
