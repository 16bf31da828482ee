import type { Issue } from '@agentv/core';
import type { CanonicalToolName, TokenUsage, TraceEvent } from '@agentv/core/provider-utils';
import type { CodingAgentSettings } from './settings.js';

/**
 * What one coding agent's CLI needs besides the shared runner: how to find and version-check it,
 * how to configure one call (config files in its own home, argv, env) and how to read its event
 * stream. One per agent (`src/codex/`, `src/claude-code/`, …); the runner, the stream reader, the
 * config home, the transcript and the error messages are shared.
 */
export interface AgentAdapter {
  /** The provider name: 'codex' | 'claude-code' | 'gemini-cli' | 'opencode' | 'copilot-cli'. */
  kind: string;
  /** Other provider names served by the same adapter (upstream's 'claude', 'claude-cli'). */
  aliases?: string[];
  /** 'Codex', 'Claude Code': named in every error message. */
  displayName: string;
  /** The npm package whose CLI this is, e.g. '@openai/codex': named in "not installed" errors. */
  npmPackage: string;
  /** The variable the agent's own docs keep its key in ('ANTHROPIC_API_KEY'), named in hints. */
  apiKeyVariable?: string;
  /** The command looked up on PATH when the target sets no `executable`: 'codex', 'claude', … */
  executable: string;
  /** The oldest version known to work (checked by the health check with `<exe> --version`). */
  minVersion: string;
  /** The version in the output of `<exe> --version`, e.g. '0.169.0'; undefined when none is found. */
  parseVersion(output: string): string | undefined;
  /** Writes the agent's config files into `call.home` and returns the argv, env and stdin of one call. */
  prepare(call: AgentCall): Promise<AgentInvocation> | AgentInvocation;
  /**
   * A fresh reader of one call's event stream. The runner passes the call `prepare` configured:
   * an agent that reports part of its run in a file of the call's home (Copilot CLI's token
   * usage) reads it in `finish`.
   */
  createReader(call?: AgentCall): AgentEventReader;
  /** The agent's own tool names → canonical names; a name not listed keeps its own name. */
  toolNames: Record<string, CanonicalToolName>;
  /** Settings this agent cannot honour, each with the reason (validate reports them as warnings). */
  unsupportedSettings?: Partial<Record<keyof CodingAgentSettings, string>>;
  /** Problems of the target's raw settings this agent alone has (validate and before a run). */
  checkSettings?(settings: Readonly<Record<string, unknown>>): Issue[];
}

/** One call of an agent: its settings, the prompt, where it works and its config home. */
export interface AgentCall {
  settings: CodingAgentSettings;
  prompt: string;
  /** Absolute path the agent works in: the case's workspace, else an empty folder of the run's own. */
  workdir: string;
  home: AgentHome;
  /**
   * The run's environment (the shell's merged over the project's `.env`), for an adapter that
   * falls back to its agent's usual variable when `api_key` is not set (`OPENAI_API_KEY`). The
   * agent does not get it: its environment is the invocation's.
   */
  runEnv: Readonly<Record<string, string | undefined>>;
}

/**
 * The per-case, per-attempt folders of the run's own that stand in for the user's: `HOME`,
 * `TMPDIR` and the XDG folders all point inside `root`, so an evaluated agent never reads or
 * writes `~/.codex`, `~/.claude` or `~/.config`, and no state passes between cases.
 */
export interface AgentHome {
  /** Removed after the call (kept with the workspace when the run keeps workspaces). */
  root: string;
  /** `HOME` of the call. */
  home: string;
  /** `TMPDIR` of the call. */
  tmp: string;
  /** `XDG_CONFIG_HOME`, `XDG_DATA_HOME`, `XDG_CACHE_HOME`, `XDG_STATE_HOME`. */
  xdg: { config: string; data: string; cache: string; state: string };
  /** HOME, TMPDIR and the XDG variables above, for the call's environment. */
  env: Record<string, string>;
}

/**
 * The argv (after the executable), extra environment and stdin of one call. The runner adds
 * `PATH`, the home's variables and the target's `env` (which wins), and never uses a shell.
 */
export interface AgentInvocation {
  args: string[];
  env: Record<string, string>;
  /** Written to the agent's stdin, then closed; stdin is empty when undefined. */
  stdin?: string;
}

/** Reads one call's event stream, one JSON line at a time. */
export interface AgentEventReader {
  /** One parsed JSON line, with the time it was read. */
  push(event: unknown, receivedAt: Date): void;
  /**
   * The run's running totals so far, for an agent whose stream carries usage as it goes (per
   * model request or step): read after every event, so a case's budget can stop the agent
   * mid-run. Undefined before the first usage. Agents that report usage only when they finish
   * have no `spent`: their totals come from `finish`, checked after the call.
   */
  spent?(): AgentSpend | undefined;
  /** After the process ended: the answer, trace, usage, cost, and a classified failure if any. */
  finish(exit: { exitCode?: number; stderr: string }): AgentOutcome;
}

/** What a run has spent so far. */
export interface AgentSpend {
  usage: TokenUsage;
  /** When the agent reports its own cost; else the provider prices `usage` with the price table. */
  costUsd?: number;
  /** The model the agent says it uses, for pricing. */
  model?: string;
}

/** What a call produced, as the reader saw it. */
export interface AgentOutcome {
  /** The final answer; undefined when the stream ended without one. */
  answer?: string;
  /** Trace events in stream order, tool names canonical with `rawName` set. */
  trace: TraceEvent[];
  usage?: TokenUsage;
  /** When the agent reports its own cost; else the provider prices `usage` with the price table. */
  costUsd?: number;
  /** The model the agent says it used, for pricing. */
  model?: string;
  /** Set when the agent reported a failure the reader recognised; the runner adds the others. */
  failure?: AgentFailure;
  /** Problems that did not stop the answer from being graded (a tool call denied, …). */
  warnings?: string[];
}

/**
 * Why a call failed. The reader sets `auth`, `model_not_found` and `agent_error` from the stream
 * (and the exit code / stderr); the runner sets `not_installed`, `version`, `timeout` and
 * `no_answer`.
 */
export type AgentFailureKind =
  | 'not_installed'
  | 'version'
  | 'auth'
  | 'model_not_found'
  | 'timeout'
  | 'no_answer'
  | 'agent_error';

export interface AgentFailure {
  kind: AgentFailureKind;
  /** What the agent said, one line, secrets masked by the runner. */
  detail?: string;
}
