import { isRecord } from '../../util/records.js';

const ENV_REFERENCE = /\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const WHOLE_ENV_REFERENCE = /^\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;
const VAR_REFERENCE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}/g;
const WHOLE_VAR_REFERENCE = /^\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}$/;
const PLAIN_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** A value removed by `interpolateEnvReferences`: its mapping key is dropped. */
const ABSENT = Symbol('absent');

/**
 * `${{ VAR }}` references replaced from `env`, as upstream reads its eval
 * files: a value that is only a reference takes the variable's type (`true`,
 * `42`), and is absent when the variable is unset; a reference inside text
 * becomes the variable's text, or nothing. Values without references are
 * returned as they are (the same objects).
 */
export function interpolateEnvReferences(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
): unknown {
  const result = replaceEnv(value, env);
  return result === ABSENT ? undefined : result;
}

function replaceEnv(value: unknown, env: Readonly<Record<string, string | undefined>>): unknown {
  if (typeof value === 'string') {
    if (!value.includes('${{')) return value;
    const whole = WHOLE_ENV_REFERENCE.exec(value);
    if (whole) {
      const resolved = env[whole[1]!];
      if (resolved === undefined) return ABSENT;
      if (resolved === 'true' || resolved === 'false') return resolved === 'true';
      return PLAIN_NUMBER.test(resolved) ? Number(resolved) : resolved;
    }
    return value.replace(ENV_REFERENCE, (_, name: string) => env[name] ?? '');
  }
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item) => {
      const next = replaceEnv(item, env);
      if (next !== item) changed = true;
      return next === ABSENT ? '' : next;
    });
    return changed ? items : value;
  }
  if (isRecord(value)) {
    let changed = false;
    const result: Record<string, unknown> = {};
    for (const [key, nested] of Object.entries(value)) {
      const next = replaceEnv(nested, env);
      if (next !== nested) changed = true;
      if (next !== ABSENT) result[key] = next;
    }
    return changed ? result : value;
  }
  return value;
}

/**
 * A case with `{{ name }}` (or `{{ a.b }}`) in its `input`, `input_files`,
 * `criteria`, `expected_outcome` and `expected_output` replaced from its
 * `vars`, as upstream does; a reference to a missing var stays as written.
 */
export function interpolateCaseVars(
  item: Record<string, unknown>,
  vars: Record<string, unknown>,
): Record<string, unknown> {
  const result = { ...item };
  for (const key of ['input', 'input_files', 'criteria', 'expected_outcome', 'expected_output']) {
    if (result[key] !== undefined) result[key] = replaceVars(result[key], vars);
  }
  return result;
}

function replaceVars(value: unknown, vars: Record<string, unknown>): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_VAR_REFERENCE.exec(value);
    if (whole) {
      const resolved = lookup(vars, whole[1]!);
      return resolved === undefined ? value : structuredClone(resolved);
    }
    return value.replace(VAR_REFERENCE, (match, expression: string) => {
      const resolved = lookup(vars, expression);
      if (resolved === undefined) return match;
      return typeof resolved === 'string' ? resolved : JSON.stringify(resolved);
    });
  }
  if (Array.isArray(value)) return value.map((item) => replaceVars(item, vars));
  if (isRecord(value)) {
    const result: Record<string, unknown> = {};
    for (const [key, nested] of Object.entries(value)) result[key] = replaceVars(nested, vars);
    return result;
  }
  return value;
}

function lookup(vars: Record<string, unknown>, expression: string): unknown {
  let current: unknown = vars;
  for (const segment of expression.split('.')) {
    if (!isRecord(current)) return undefined;
    current = current[segment];
  }
  return current;
}
