import type { Issue } from '../errors/input-issue.js';
import type { WorkspaceConfig } from '../workspace/workspace-config.js';
import type { Provider } from './provider.js';
import type { ResolvedTarget } from './resolved-target.js';

/** What the app gives a provider factory besides the target. */
export interface ProviderContext {
  /**
   * Per-call timeout in seconds from `--agent-timeout`: wins over the target's `timeout_seconds`.
   * Providers read both through `callTimeout(target.timeoutSeconds, context)`.
   */
  defaultTimeoutSeconds?: number;
  /** Print diagnostics (rendered command, stderr, duration) through `log`. */
  verbose?: boolean;
  /** Diagnostic sink; defaults to stderr. */
  log?: (line: string) => void;
  /**
   * The environment the agent's processes start from: the shell's variables
   * merged over the project's `.env` (see `LoadedProject.env`). Default `process.env`.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Folder for providers that cache their calls on disk (LLM providers use
   * `.agentv/cache/`); undefined turns caching off (`--no-cache`).
   */
  cacheDir?: string;
}

/**
 * Creates providers of one kind. Registered in the app, looked up by the
 * target's `provider:` value.
 */
export interface ProviderFactory {
  /** The `provider:` value this factory serves. */
  readonly kind: string;
  /** Keys this provider understands in a target (snake_case), for unknown-key warnings. */
  readonly settingsKeys?: readonly string[];
  /**
   * Whether a target of this kind can answer a judge prompt (a language
   * model, or `mock` with a canned reply): with no judge configured, such a
   * target judges its own answers, as AgentV 1.x–4.x did. Default false.
   */
  readonly canJudge?: boolean;
  /**
   * Check a target's settings before the run starts; return every problem
   * found, each with `path` set to the setting it is about
   * (`['command_template']`, `['healthcheck', 'url']`). Core adds the file
   * location and the target's name.
   */
  validate?(target: ResolvedTarget): Issue[];
  /**
   * Check what depends on where the target is used, e.g. a `cwd` relative to
   * the eval file; called once per target and eval file before the run.
   * `mode` is `validate` for `agentv validate`, which reports what a run would
   * refuse as errors too (for a target no checked eval file uses, validate
   * itself makes them warnings).
   * `workspace` is the cases' workspace block when they have one: the agent then
   * runs in a copy of it, not in the eval file's folder (called once per block).
   */
  checkUse?(
    target: ResolvedTarget,
    evalFile: string,
    mode?: 'run' | 'validate',
    workspace?: WorkspaceConfig,
  ): Issue[];
  /** Create the provider for a target whose settings passed `validate`. */
  create(target: ResolvedTarget, context: ProviderContext): Provider;
}
