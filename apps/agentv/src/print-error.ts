import { formatIssue, isAgentvError, isInvalidInputError } from '@agentv/core';
import { ExitCode } from './exit-code.js';
import { stripColor, useColor } from './use-color.js';

/**
 * Prints an error that ended a command and returns the exit code. User-facing
 * errors get one line per problem plus a hint; unexpected errors keep their stack.
 */
export function printError(error: unknown, commandName?: string): number {
  const write = (line: string) => process.stderr.write(`${line}\n`);
  if (isInvalidInputError(error)) {
    for (const issue of error.issues) {
      write(`${issue.severity}: ${formatIssue(issue)}`);
    }
    return ExitCode.Error;
  }
  if (isAgentvError(error)) {
    write(`agentv: ${error.message}`);
    if (error.hint) write(`  hint: ${error.hint}`);
    return ExitCode.Error;
  }
  if (error instanceof Error && error.name === 'CLIError') {
    // citty's argument errors (missing positional, bad enum value), coloured by citty.
    write(`agentv: ${useColor(process.stderr) ? error.message : stripColor(error.message)}`);
    write(`  hint: see agentv ${commandName ?? ''} --help`.replace(/\s+--help/, ' --help'));
    return ExitCode.Error;
  }
  write(
    'agentv: unexpected error (this is a bug in AgentV; please report it with the stack below)',
  );
  write(error instanceof Error ? (error.stack ?? error.message) : String(error));
  return ExitCode.Error;
}
