/** Process exit codes (README, "Running"). */
export const ExitCode = {
  /** Every case passed. */
  Passed: 0,
  /** At least one case failed its threshold. */
  Failed: 1,
  /** A case errored, or the input or command line was invalid. */
  Error: 2,
  /** `--budget-usd` was spent before every case ran: the cases not run are listed. */
  BudgetExhausted: 3,
  /** The run was interrupted (Ctrl-C, SIGTERM, SIGHUP). */
  Interrupted: 130,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
