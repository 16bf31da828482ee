import { displayPath, UsageError } from '@agentv/core/internal';
import { type ReadResultLine, ResultFileLineError, readResultFile } from '@agentv/results';

/**
 * Reads a JSONL result file for a command that takes one as input. A missing
 * file, a folder, a YAML result file or a line that is not a result line is a
 * usage error naming the file (and line); `hint` says what the command expects.
 */
export async function readResultLines(
  filePath: string,
  cwd: string,
  hint: string,
): Promise<ReadResultLine[]> {
  const shown = displayPath(cwd, filePath);
  if (/\.ya?ml$/i.test(filePath)) {
    throw new UsageError(`${shown} is a YAML file; this command reads JSONL result files`, {
      hint,
    });
  }
  try {
    return await readResultFile(filePath);
  } catch (error) {
    if (error instanceof ResultFileLineError) {
      throw new UsageError(error.describe(shown), { hint });
    }
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'the file does not exist'
        : code === 'EISDIR'
          ? 'it is a folder'
          : (error as Error).message;
    throw new UsageError(`cannot read ${shown}: ${reason}`, { hint });
  }
}
