import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Ajv as AjvClass, ValidateFunction } from 'ajv';
import type { Issue } from '../errors/input-issue.js';
import { isRecord } from '../util/records.js';
import type { EvaluationContext, Evaluator } from './evaluator.js';
import { EvaluatorError } from './evaluator-error.js';
import { describe, excerpt } from './evaluator-options.js';

/** Errors listed as misses, at most. */
const MAX_SCHEMA_MISSES = 4;

/**
 * `json_schema`: the answer, trimmed, must be JSON valid against `schema` (a
 * JSON Schema, draft-07 or 2019-09 keywords, given inline or as the path of a
 * `.json` file relative to the eval file). Score 1 or 0; each violation (up to
 * 4) is a miss. A schema that does not compile is an evaluator error.
 */
export const jsonSchemaEvaluator: Evaluator = {
  type: 'json_schema',
  options: ['schema'],
  validate: (config) => schemaOptionIssues(config.schema, 'schema'),
  async evaluate(config, context) {
    const validate = await loadJsonSchema(config.schema, 'schema', context);
    const answer = context.candidateAnswer.trim();
    let value: unknown;
    try {
      value = JSON.parse(answer);
    } catch (error) {
      return {
        score: 0,
        hits: [],
        misses: [
          answer === ''
            ? 'Answer is empty, not JSON'
            : `Answer is not valid JSON: ${(error as Error).message}`,
        ],
      };
    }
    if (validate(value)) return { score: 1, hits: ['Answer matches the JSON schema'], misses: [] };
    const misses = schemaViolations(validate, 'the answer');
    return {
      score: 0,
      hits: [],
      misses: misses.length > 0 ? misses : ['Answer does not match the JSON schema'],
    };
  },
};

let ajvClass: typeof AjvClass | undefined;

// ajv is loaded on first use: it takes tens of milliseconds to load, and only a json_schema
// grader needs it.
function loadAjv(): typeof AjvClass {
  ajvClass ??= (createRequire(import.meta.url)('ajv') as { Ajv: typeof AjvClass }).Ajv;
  return ajvClass;
}

function compile(schema: unknown, option: string): ValidateFunction | string {
  try {
    const Ajv = loadAjv();
    const ajv = new Ajv({ allErrors: true, strict: false });
    return ajv.compile(schema as Record<string, unknown> | boolean);
  } catch (error) {
    return `"${option}" is not a valid JSON Schema: ${excerpt((error as Error).message, 160)}`;
  }
}

/**
 * Problems with a JSON Schema option (`schema`, the file grader's
 * `json_schema`) before the run: missing, empty, not a mapping or path, or an
 * inline schema that does not compile.
 */
export function schemaOptionIssues(schema: unknown, option: string): Issue[] {
  const at = (message: string): Issue[] => [{ severity: 'error', path: [option], message }];
  if (schema === undefined) {
    return at(
      `"${option}" is missing; give a JSON Schema mapping or the path of a .json schema file`,
    );
  }
  if (typeof schema === 'string') {
    return schema.trim() === ''
      ? at(`"${option}" is empty; give a JSON Schema or a file path`)
      : [];
  }
  if (!isRecord(schema) && typeof schema !== 'boolean') {
    return at(`"${option}" must be a JSON Schema mapping or a file path, got ${describe(schema)}`);
  }
  const compiled = compile(schema, option);
  return typeof compiled === 'string' ? at(compiled) : [];
}

/**
 * The compiled schema of an option: inline, or read from a `.json` file
 * relative to the eval file. Throws `EvaluatorError` when the file cannot be
 * read or the schema does not compile.
 */
export async function loadJsonSchema(
  schema: unknown,
  option: string,
  context: EvaluationContext,
): Promise<ValidateFunction> {
  let value = schema;
  if (typeof value === 'string') {
    const resolved = path.resolve(path.dirname(context.evalCase.filePath), value);
    let text: string;
    try {
      text = await readFile(resolved, 'utf8');
    } catch (error) {
      throw new EvaluatorError(`schema file ${value} cannot be read (resolved to ${resolved})`, {
        hint: `fix the path in "${option}"; it is relative to the eval file's directory`,
        cause: error,
      });
    }
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new EvaluatorError(
        `schema file ${value} is not valid JSON: ${(error as Error).message}`,
      );
    }
  }
  const compiled = compile(value, option);
  if (typeof compiled === 'string') throw new EvaluatorError(compiled);
  return compiled;
}

/** The violations `validate` found in its last call (up to 4), as misses about `subject`. */
export function schemaViolations(validate: ValidateFunction, subject: string): string[] {
  return (validate.errors ?? []).slice(0, MAX_SCHEMA_MISSES).map((error) => {
    const where = error.instancePath === '' ? subject : error.instancePath;
    return `Schema violation at ${where}: ${error.message ?? error.keyword}`;
  });
}
