/** What decides whether output gets colours: the stream and the environment. */
export interface ColorStream {
  isTTY?: boolean;
}

/**
 * Whether to colour what goes to `stream`: `FORCE_COLOR` (other than `0` or
 * `false`) forces colours and `FORCE_COLOR=0` turns them off; otherwise a
 * non-empty `NO_COLOR` (https://no-color.org), `TERM=dumb` or `CI` turns them
 * off, and they are on only when `stream` is a terminal (never when piped).
 */
export function useColor(stream: ColorStream, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (force === '0' || force === 'false') return false;
    return true;
  }
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  if (env.CI !== undefined && env.CI !== '' && env.CI !== '0' && env.CI !== 'false') return false;
  return stream.isTTY === true;
}

// SGR sequences (colours, bold, underline) as citty's help writes them.
const SGR = /\u001b\[[0-9;]*m/g;

/** `text` without colour codes. */
export function stripColor(text: string): string {
  return text.replace(SGR, '');
}
