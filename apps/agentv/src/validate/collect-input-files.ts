import path from 'node:path';
import { displayPath, UsageError } from '@agentv/core/internal';
import { terminalText } from '@agentv/results';
import { expandPaths, globFiles } from '../expand-paths.js';
import { withoutOtherToolsYaml } from './detect-file-kind.js';

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
    directory: async (absolute) => {
      const found = await inputFilesIn(absolute);
      skipped.push(...found.skipped);
      if (found.files.length === 0 && found.skipped.length > 0) {
        throw new UsageError(
          `no eval, targets or config files in "${terminalText(displayPath(cwd, absolute))}": its ${count(found.skipped.length, 'YAML file')} (${otherToolsFiles(found.skipped, absolute)}) ${found.skipped.length === 1 ? 'belongs' : 'belong'} to other tools`,
          {
            hint: `none of their top-level keys is one of an eval file's (such as evalcases, cases, tests); give a file by name to check it as an eval file anyway`,
          },
        );
      }
      return found.files;
    },
    noun: 'eval, targets or config files',
  });
  const checked = new Set(files);
  return { files, skipped: [...new Set(skipped)].filter((file) => !checked.has(file)).sort() };
}

async function inputFilesIn(absolute: string): Promise<InputFiles> {
  if (path.basename(absolute) === '.agentv') {
    return {
      files: await globFiles(INPUTS_OF_AGENTV_FOLDER, { cwd: absolute, absolute: true }),
      skipped: [],
    };
  }
  const [yamlFiles, agentvFiles] = await Promise.all([
    globFiles(YAML_FILES, { cwd: absolute, absolute: true, ignore: IGNORED }),
    // Without `dot`, `**` skips hidden folders (.git) while the literal `.agentv` still matches.
    globFiles(AGENTV_FILES, { cwd: absolute, absolute: true, ignore: ['**/node_modules/**'] }),
  ]);
  const { files, skipped } = await withoutOtherToolsYaml(yamlFiles);
  return { files: [...files, ...agentvFiles], skipped };
}

/** Up to three of `files` by their path under `folder`, and how many more. */
function otherToolsFiles(files: readonly string[], folder: string): string {
  // File names are the user's, any bytes: none may start a line or move the cursor.
  const shown = files.slice(0, 3).map((file) => terminalText(path.relative(folder, file)));
  return files.length > 3 ? `${shown.join(', ')} and ${files.length - 3} more` : shown.join(', ');
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
