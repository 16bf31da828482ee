/**
 * How messages name the options that choose targets: `agentv` passes its flags
 * (`CLI_OPTION_NAMES`), the library API names its own options, so an error
 * points at what the caller actually wrote.
 */
export interface OptionNames {
  /** Runs every case against one or several targets (`--target`). */
  target: string;
  /** The target LLM graders ask (`--judge-target`). */
  judgeTarget: string;
  /** The targets file (`--targets`). */
  targetsFile: string;
  /** Cases run at once (`--workers`). */
  workers: string;
  /** Retries of a failed agent call (`--max-retries`). */
  maxRetries: string;
}

/** The options of `evaluate()`, `planRun()` and `loadProject()`. */
export const LIBRARY_OPTION_NAMES: OptionNames = {
  target: 'target',
  judgeTarget: 'judgeTarget',
  targetsFile: 'targetsFile',
  workers: 'workers',
  maxRetries: 'maxRetries',
};

/** The flags of `agentv eval` and `agentv validate`. */
export const CLI_OPTION_NAMES: OptionNames = {
  target: '--target',
  judgeTarget: '--judge-target',
  targetsFile: '--targets',
  workers: '--workers',
  maxRetries: '--max-retries',
};

/** How a hint tells the caller to give an option: `pass --target NAME`, ``set the `target` option``. */
export function passOption(name: string, value?: string): string {
  if (!name.startsWith('-')) return `set the \`${name}\` option`;
  return value === undefined ? `pass ${name}` : `pass ${name} ${value}`;
}
