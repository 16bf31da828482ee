import type { ValidateFunction } from 'ajv';
import type { Issue } from '../errors/input-issue.js';
import type { EvaluatorConfig } from '../eval-file/evaluator-config.js';
import { isRecord } from '../util/records.js';
import type { Evaluator } from './evaluator.js';
import { describe, optionIssue, throwIfInvalid } from './evaluator-options.js';
import { loadJsonSchema, schemaOptionIssues, schemaViolations } from './json-schema.js';

/**
 * `is_valid_openai_tools_call`: the answer is JSON holding OpenAI-style tool calls —
 * a list of `{type: function, function: {name, arguments}}`, an object with such a
 * `tool_calls` list, or one call — whose `arguments` are a JSON object (or a string
 * of one). With `tools` (OpenAI tool definitions), each call must name a declared
 * tool and its arguments must match that tool's `parameters` schema. Score 1 or 0;
 * each problem is a miss naming the call.
 */
export const openAiToolsCallEvaluator: Evaluator = {
  type: 'is_valid_openai_tools_call',
  options: ['tools'],
  validate: toolsIssues,
  async evaluate(config, context) {
    throwIfInvalid(toolsIssues(config));
    const schemas = new Map<string, ValidateFunction | undefined>();
    for (const tool of (config.tools as Record<string, unknown>[] | undefined) ?? []) {
      const fn = tool.function as Record<string, unknown>;
      const parameters = fn.parameters;
      schemas.set(
        fn.name as string,
        parameters === undefined ? undefined : await loadJsonSchema(parameters, 'tools', context),
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(context.candidateAnswer.trim());
    } catch (error) {
      return {
        score: 0,
        hits: [],
        misses: [`Answer is not valid JSON: ${(error as Error).message}`],
      };
    }
    const calls = Array.isArray(parsed)
      ? parsed
      : isRecord(parsed) && Array.isArray(parsed.tool_calls)
        ? parsed.tool_calls
        : [parsed];
    if (calls.length === 0) return { score: 0, hits: [], misses: ['Answer holds no tool call'] };
    const hits: string[] = [];
    const misses: string[] = [];
    calls.forEach((call, index) => {
      const problem = callProblem(call, config.tools === undefined ? undefined : schemas);
      const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
      const name = typeof fn?.name === 'string' ? ` ${JSON.stringify(fn.name)}` : '';
      if (problem === undefined) hits.push(`Tool call ${index + 1}${name} is valid`);
      else misses.push(`Tool call ${index + 1}${name}: ${problem}`);
    });
    return { score: misses.length === 0 ? 1 : 0, hits, misses };
  },
};

function callProblem(
  call: unknown,
  schemas: Map<string, ValidateFunction | undefined> | undefined,
): string | undefined {
  if (!isRecord(call) || !isRecord(call.function)) {
    return `must be {type: "function", function: {name, arguments}}, got ${describe(call)}`;
  }
  if (call.type !== undefined && call.type !== 'function')
    return `type is ${describe(call.type)}, not "function"`;
  const { name, arguments: args } = call.function;
  if (typeof name !== 'string' || name === '') return 'function.name is missing';
  let value: unknown = args;
  if (typeof args === 'string') {
    try {
      value = JSON.parse(args);
    } catch (error) {
      return `function.arguments is not valid JSON: ${(error as Error).message}`;
    }
  }
  if (!isRecord(value)) return `function.arguments must be a JSON object, got ${describe(value)}`;
  if (schemas === undefined) return undefined;
  if (!schemas.has(name))
    return `"${name}" is not a declared tool (${[...schemas.keys()].join(', ')})`;
  const validate = schemas.get(name);
  if (validate === undefined || validate(value)) return undefined;
  return schemaViolations(validate, 'arguments').join('; ');
}

function toolsIssues(config: EvaluatorConfig): Issue[] {
  const { tools } = config;
  if (tools === undefined) return [];
  const usage =
    'give "tools" as a list of OpenAI tool definitions {type: function, function: {name, parameters}}';
  if (!Array.isArray(tools) || tools.length === 0)
    return [optionIssue('tools', `"tools" must be a non-empty list; ${usage}`)];
  const issues: Issue[] = [];
  tools.forEach((tool, index) => {
    const fn = isRecord(tool) ? tool.function : undefined;
    if (!isRecord(fn) || typeof fn.name !== 'string' || fn.name === '') {
      issues.push(optionIssue('tools', `"tools[${index}]" has no function.name; ${usage}`));
    } else if (fn.parameters !== undefined) {
      issues.push(...schemaOptionIssues(fn.parameters, `tools[${index}].function.parameters`));
    }
  });
  return issues;
}
