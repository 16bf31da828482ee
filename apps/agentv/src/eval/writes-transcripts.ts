import type { ResolvedTarget } from '@agentv/core/provider-utils';
import { codingAgentProviderFactories } from '@agentv/provider-coding-agents';

const TRANSCRIPT_KINDS = new Set(codingAgentProviderFactories.map((factory) => factory.kind));

/** True for a target whose provider hands back a transcript: a coding agent's event stream. */
export function writesTranscripts(target: ResolvedTarget): boolean {
  return TRANSCRIPT_KINDS.has(target.provider);
}
