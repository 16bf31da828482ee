/**
 * Text printed after a command's `--help` usage (citty renders the rest): what citty has no
 * section for, such as exit codes.
 */
const epilogs = new WeakMap<object, string>();

/** Gives `command` an epilog for its `--help`; returns the command. */
export function withHelpEpilog<T extends object>(command: T, epilog: string): T {
  epilogs.set(command, epilog);
  return command;
}

/** The epilog `withHelpEpilog` gave `command`, if any. */
export function helpEpilog(command: object): string | undefined {
  return epilogs.get(command);
}

/** The exit codes of `agentv eval` (`command: 'eval'`) and `agentv grade`. */
export function runExitCodes(command: 'eval' | 'grade'): string {
  const errored =
    command === 'eval' ? 'a case errored' : 'a case errored or a recorded case could not be graded';
  return [
    'EXIT CODES',
    '',
    '  0    every case passed',
    `  1    a case failed${command === 'eval' ? ' (or was flaky, with --fail-on-flaky)' : ''}`,
    `  2    ${errored}, the input or command line was invalid, or a result file or report could not be written`,
    ...(command === 'eval' ? ['  3    --budget-usd was spent before every case ran'] : []),
    '  130  interrupted (Ctrl-C, SIGTERM, SIGHUP); finished cases are kept',
  ].join('\n');
}
