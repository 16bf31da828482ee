import { formatIssue, isAgentvError, isInvalidInputError } from '@agentv/core';
import { terminalLines, terminalText } from '@agentv/results';
import { ExitCode } from './exit-code.js';
import { stripColor, useColor } from './use-color.js';

/**
 * Prints an error that ended a command and returns the exit code. User-facing
 * errors get one line per problem plus a hint; unexpected errors keep their stack.
 * What came from files or agents cannot drive the terminal: an issue is one
 * line (`terminalText`), a message keeps only its own line breaks (`terminalLines`).
 */
export function printError(error: unknown, commandName?: string): number {
  const write = (line: string) => process.stderr.write(`${line}\n`);
  if (isInvalidInputError(error)) {
    for (const issue of error.issues) {
      write(`${issue.severity}: ${terminalText(formatIssue(issue))}`);
    }
    return ExitCode.Error;
  }
  if (isAgentvError(error)) {
    write(`agentv: ${terminalLines(error.message)}`);
    if (error.hint) write(`  hint: ${terminalLines(error.hint)}`);
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
  write(terminalLines(error instanceof Error ? (error.stack ?? error.message) : String(error)));
  return ExitCode.Error;
}
