import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Ajv as AjvClass, ValidateFunction } from 'ajv';
import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
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
  validate(config) {
    const at = (message: string): Issue[] => [{ severity: 'error', path: ['schema'], message }];
    const { schema } = config;
    if (schema === undefined) {
      return at(
        '"schema" is missing; give a JSON Schema mapping or the path of a .json schema file',
      );
    }
    if (typeof schema === 'string') {
      return schema.trim() === '' ? at('"schema" is empty; give a JSON Schema or a file path') : [];
    }
    if (!isRecord(schema) && typeof schema !== 'boolean') {
      return at(`"schema" must be a JSON Schema mapping or a file path, got ${describe(schema)}`);
    }
    const compiled = compile(schema);
    return typeof compiled === 'string' ? at(compiled) : [];
  },
  async evaluate(config, context) {
    const validate = await loadValidator(config, context);
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
    const misses = (validate.errors ?? []).slice(0, MAX_SCHEMA_MISSES).map((error) => {
      const where = error.instancePath === '' ? 'the answer' : error.instancePath;
      return `Schema violation at ${where}: ${error.message ?? error.keyword}`;
    });
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

function compile(schema: unknown): ValidateFunction | string {
  try {
    const Ajv = loadAjv();
    const ajv = new Ajv({ allErrors: true, strict: false });
    return ajv.compile(schema as Record<string, unknown> | boolean);
  } catch (error) {
    return `"schema" is not a valid JSON Schema: ${excerpt((error as Error).message, 160)}`;
  }
}

async function loadValidator(
  config: EvaluatorConfig,
  context: EvaluationContext,
): Promise<ValidateFunction> {
  let schema = config.schema;
  if (typeof schema === 'string') {
    const resolved = path.resolve(path.dirname(context.evalCase.filePath), schema);
    let text: string;
    try {
      text = await readFile(resolved, 'utf8');
    } catch (error) {
      throw new EvaluatorError(`schema file ${schema} cannot be read (resolved to ${resolved})`, {
        hint: 'fix the path in "schema"; it is relative to the eval file\'s directory',
        cause: error,
      });
    }
    try {
      schema = JSON.parse(text);
    } catch (error) {
      throw new EvaluatorError(
        `schema file ${schema} is not valid JSON: ${(error as Error).message}`,
      );
    }
  }
  const compiled = compile(schema);
  if (typeof compiled === 'string') throw new EvaluatorError(compiled);
  return compiled;
}
