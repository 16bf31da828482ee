import { KNOWN_KEYS } from './eval-file-schema.js';
import { NEW_FILE_KEYS } from './upstream/translate-upstream-format.js';

/**
 * The top-level keys an eval file may have, in AgentV's format or upstream's (`tests:`…), beside
 * keys that only describe a file (`name`, `version`…), which other YAML files have too. A YAML
 * file none of whose top-level keys is one of these is not an eval file (`agentv validate` skips
 * such files where it searches a folder).
 */
export const EVAL_FILE_KEYS: ReadonlySet<string> = new Set([...KNOWN_KEYS.file, ...NEW_FILE_KEYS]);
