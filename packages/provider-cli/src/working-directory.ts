import { isAbsolute, resolve } from 'node:path';
import type { ProviderRequest } from '@agentv/core/provider-utils';
import type { CliProviderSettings } from './cli-provider-settings.js';

/**
 * The directory a command runs in: `settings.cwd` when absolute; else, for a
 * case with a workspace, resolved inside it (the default `cwd` is the
 * workspace itself); else resolved against the directory of the case's eval
 * file (`request.evalDir`; the default `cwd` is that directory), or against
 * the targets' base folder when the request names none.
 */
export function workingDirectory(
  settings: Pick<CliProviderSettings, 'cwd' | 'baseDir'>,
  request: Pick<ProviderRequest, 'evalDir' | 'workspace'>,
): string {
  if (isAbsolute(settings.cwd)) return settings.cwd;
  return resolve(
    request.workspace ?? request.evalDir ?? settings.baseDir ?? process.cwd(),
    settings.cwd,
  );
}
