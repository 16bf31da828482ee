import path from 'node:path';
import { expandPaths, globFiles } from '../expand-paths.js';
import { evalInputsIn } from '../input-files/detect-file-kind.js';

/** Hidden folders and dependencies hold no input files; `.agentv/` is searched separately. */
const IGNORED = ['**/node_modules/**', '**/.*/**'];
const YAML_FILES = '**/*.{yaml,yml}';
/** Only these two files of `.agentv/` are inputs; it also holds results, which may be YAML. */
const INPUTS_OF_AGENTV_FOLDER = '{targets,config}.{yaml,yml}';
const AGENTV_FILES = [
  `.agentv/${INPUTS_OF_AGENTV_FOLDER}`,
  `**/.agentv/${INPUTS_OF_AGENTV_FOLDER}`,
];

/** What `agentv validate` checks, and the YAML files of other tools it skipped in folders. */
export interface InputFiles {
  /** Absolute paths, sorted, without repeats. */
  files: string[];
  /** YAML files found by searching a folder that are other tools' files (`isOtherToolsYaml`). */
  skipped: string[];
}

/**
 * Expands the command line's paths into absolute input file paths, sorted
 * and without repeats: a file as given, a glob's matches, and for a
 * directory every YAML file under it (outside hidden folders and
 * node_modules) that is not another tool's file, plus the targets and config
 * files of its `.agentv/` folders (only those two when the directory is an
 * `.agentv/` folder itself). A path that matches nothing is a usage error.
 */
export async function collectInputFiles(
  inputs: readonly string[],
  cwd: string,
): Promise<InputFiles> {
  const skipped: string[] = [];
  const files = await expandPaths(inputs, cwd, {
    directory: (absolute) => inputFilesIn(absolute, cwd, skipped),
    noun: 'eval, targets or config files',
  });
  const checked = new Set(files);
  return { files, skipped: [...new Set(skipped)].filter((file) => !checked.has(file)).sort() };
}

async function inputFilesIn(absolute: string, cwd: string, skipped: string[]): Promise<string[]> {
  if (path.basename(absolute) === '.agentv') {
    return globFiles(INPUTS_OF_AGENTV_FOLDER, { cwd: absolute, absolute: true });
  }
  const [yamlFiles, agentvFiles] = await Promise.all([
    globFiles(YAML_FILES, { cwd: absolute, absolute: true, ignore: IGNORED }),
    // Without `dot`, `**` skips hidden folders (.git) while the literal `.agentv` still matches.
    globFiles(AGENTV_FILES, { cwd: absolute, absolute: true, ignore: ['**/node_modules/**'] }),
  ]);
  const files = await evalInputsIn(absolute, yamlFiles, cwd, skipped, agentvFiles.length);
  return [...files, ...agentvFiles];
}
