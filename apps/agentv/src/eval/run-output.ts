import path from 'node:path';
import { outputRoot } from './project-root.js';

/** `.agentv/results/<command>_<timestamp>.<extension>` of the project of `cwd` (`outputRoot`). */
export function defaultResultPath(extension: string, cwd: string, command = 'eval'): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return path.join(outputRoot(cwd), '.agentv', 'results', `${command}_${stamp}.${extension}`);
}
