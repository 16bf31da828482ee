import { jsonSchemaFile } from '@agentv/core/internal';
import { resultLineSchema } from './result-line-schema.js';

/** The file `@agentv/results/schemas/` ships the result line's JSON Schema in. */
export const RESULT_LINE_SCHEMA_FILE = 'result-line.schema.json';

/** The JSON Schema of one result line, generated from `resultLineSchema`: the file's text. */
export function buildResultLineJsonSchema(): string {
  return jsonSchemaFile(resultLineSchema, {
    title: 'AgentV result line',
    description:
      'One line of a JSONL result file (one document of a YAML one) that agentv eval, grade and results merge write: one case against one target. Keys not listed here may appear in lines of a newer AgentV.',
  });
}
