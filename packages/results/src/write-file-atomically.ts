import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes `content` to `filePath` through a temp file in the same folder that is
 * then renamed over it: the path holds the previous file or the whole new one,
 * never a part. When writing fails (a full disk, a folder turned read-only) the
 * temp file is removed, the previous file is left as it was, and the error is
 * rethrown. The folder must exist.
 */
export async function writeFileAtomically(
  filePath: string,
  content: string | Uint8Array,
): Promise<void> {
  // A dot name that no run of AgentV reads: a temp file left by a killed process stays hidden.
  const temp = path.join(
    path.dirname(filePath),
    `.${path.basename(filePath)}.${randomBytes(4).toString('hex')}.tmp`,
  );
  try {
    await writeFile(temp, content, { flag: 'wx' });
    await rename(temp, filePath);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}
