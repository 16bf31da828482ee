import { FAILSAFE_SCHEMA, load, type State, Type } from 'js-yaml';

/**
 * A node of a file read by `loadFast`: where it starts (a character offset
 * in the text, as the `yaml` package's `range[0]`) and, for collections,
 * where its keys and children start. `exact: false` means the positions
 * below this node could not be matched to the `yaml` package's; a locator
 * then asks `yaml` instead.
 */
export interface FastNode {
  start: number;
  exact: boolean;
  /** A mapping's keys (as `String(key)`), their offsets and their values, in file order. */
  keys?: string[];
  keyStarts?: number[];
  values?: FastNode[];
  /** A sequence's items. */
  items?: FastNode[];
}

/** A file parsed by `loadFast`. */
export interface FastLoad {
  data: unknown;
  root: FastNode;
}

// Scalars resolve as in the `yaml` package's default (YAML 1.2 core) schema, with the same
// patterns and conversions, so both parsers give the same values: js-yaml's own CORE_SCHEMA
// differs on `1_000`, `+.inf`, `0o17`-style literals and a few others. Each type first looks
// at the first character, as most plain scalars are text.
const scalar = (
  tag: string,
  firstChars: string,
  test: RegExp,
  construct: (text: string) => unknown,
): Type =>
  new Type(`tag:yaml.org,2002:${tag}`, {
    kind: 'scalar',
    resolve: (text: unknown) =>
      typeof text === 'string' &&
      (text === '' ? tag === 'null' : firstChars.includes(text.charAt(0))) &&
      test.test(text),
    construct: (text: string) => construct(text),
  });

const NUMBER_START = '-+.0123456789';

const CORE_SCHEMA = FAILSAFE_SCHEMA.extend({
  implicit: [
    scalar('null', '~nN', /^(?:~|[Nn]ull|NULL)?$/, () => null),
    scalar('bool', 'tTfF', /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/, (text) => 'tT'.includes(text[0]!)),
    scalar('int', NUMBER_START, /^(?:0o[0-7]+|[-+]?[0-9]+|0x[0-9a-fA-F]+)$/, (text) =>
      text.startsWith('0o')
        ? Number.parseInt(text.slice(2), 8)
        : text.startsWith('0x')
          ? Number.parseInt(text.slice(2), 16)
          : Number.parseInt(text, 10),
    ),
    scalar(
      'float',
      NUMBER_START,
      /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+|[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*))$/,
      (text) =>
        text.slice(-3).toLowerCase() === 'nan'
          ? Number.NaN
          : text.slice(-3).toLowerCase() === 'inf'
            ? text[0] === '-'
              ? Number.NEGATIVE_INFINITY
              : Number.POSITIVE_INFINITY
            : Number.parseFloat(text),
    ),
  ],
});

interface Frame {
  start: number;
  /** Nodes read inside this one (undefined for none). */
  children: Frame[] | undefined;
  result: unknown;
  kind: string | null;
  endLine: number;
  line: number;
  end: number;
}

/** Characters that start node properties or aliases, or a directive line. */
const PROPERTY = /[!&*]/;

/**
 * Parses `text` with js-yaml (fast, no syntax tree) into the same value the
 * `yaml` package gives, with the start of every node. Undefined whenever the
 * result might differ from `yaml`'s or `yaml` would report a syntax error or
 * warning: a js-yaml error (duplicate keys, several documents, tabs…),
 * directives, tags, anchors and aliases, flow collections over several
 * lines, and a top level that is not a mapping. The caller then uses `yaml`.
 */
export function loadFast(text: string): FastLoad | undefined {
  if (/^%/m.test(text)) return undefined;
  // js-yaml drops a leading byte order mark; `yaml` counts it in offsets.
  const shift = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const stack: Frame[] = [
    { start: 0, children: undefined, result: null, kind: null, line: 0, endLine: 0, end: 0 },
  ];
  let unsupported = false;
  const listener = (event: 'open' | 'close', state: State & Record<string, unknown>) => {
    if (event === 'open') {
      stack.push({
        start: state.position,
        children: undefined,
        result: null,
        kind: null,
        line: state.line,
        endLine: 0,
        end: 0,
      });
      return;
    }
    const frame = stack.pop()!;
    frame.result = state.result;
    frame.kind = (state.kind as string | null) ?? null;
    frame.endLine = state.line;
    frame.end = state.position;
    if (state.anchor !== null) unsupported = true;
    const parent = stack[stack.length - 1]!;
    if (parent.children === undefined) parent.children = [frame];
    else parent.children.push(frame);
  };
  let data: unknown;
  try {
    data = load(text, {
      schema: CORE_SCHEMA,
      json: false,
      listener: listener as unknown as (event: string, state: State) => void,
    });
  } catch {
    return undefined;
  }
  if (unsupported || typeof data !== 'object' || data === null || Array.isArray(data)) {
    return undefined;
  }
  const top = stack[0]!.children;
  if (top?.length !== 1) return undefined;
  const input = shift === 1 ? text.slice(1) : text;
  const context = { input, shift, flowOverLines: false, unsupported: false };
  const root = toNode(top[0]!, context);
  if (context.flowOverLines || context.unsupported) return undefined;
  return { data, root };
}

interface Context {
  input: string;
  shift: number;
  flowOverLines: boolean;
  unsupported: boolean;
}

function toNode(frame: Frame, context: Context): FastNode {
  // A value on its own line is read through a nested attempt that yields the same result.
  let inner = frame;
  while (
    inner.children?.length === 1 &&
    inner.children[0]!.result === inner.result &&
    inner.children[0]!.kind === inner.kind
  ) {
    inner = inner.children[0]!;
  }
  const children = inner.children ?? [];
  const start = skipSpace(context.input, inner.start);
  const first = context.input.charAt(start);
  if (PROPERTY.test(first)) context.unsupported = true;
  const node: FastNode = { start: start + context.shift, exact: true };
  if (inner.kind === 'mapping') {
    if ((first === '{' || first === '[') && inner.endLine !== inner.line)
      context.flowOverLines = true;
    const keys = Object.keys(inner.result as object);
    if (children.length !== keys.length * 2) {
      node.exact = false;
      return node;
    }
    node.keys = [];
    node.keyStarts = [];
    node.values = [];
    for (let index = 0; index < children.length; index += 2) {
      const key = children[index]!;
      const keyStart = skipSpace(context.input, key.start);
      // `yaml` turns other keys into different strings ("" for null, "[ x ]" for a list) and
      // refuses implicit keys over 1024 characters.
      if (
        typeof key.result !== 'string' ||
        key.end - keyStart > 1000 ||
        PROPERTY.test(context.input.charAt(keyStart))
      ) {
        context.unsupported = true;
        return node;
      }
      node.keys.push(String(key.result));
      node.keyStarts.push(keyStart + context.shift);
      node.values.push(valueNode(children[index + 1]!, context));
    }
  } else if (inner.kind === 'sequence') {
    if (first === '[' && inner.endLine !== inner.line) context.flowOverLines = true;
    const items = inner.result as unknown[];
    if (children.length !== items.length) {
      node.exact = false;
      return node;
    }
    node.items = children.map((child) => valueNode(child, context));
  }
  return node;
}

/** A value, or an empty value, which `yaml` places where its line's content ends. */
function valueNode(frame: Frame, context: Context): FastNode {
  if (frame.result === null && skipSpace(context.input, frame.start) >= frame.end) {
    return { start: -1, exact: false };
  }
  return toNode(frame, context);
}

/** The offset of the next character that is not white space, a line break or a comment. */
function skipSpace(input: string, from: number): number {
  let position = from;
  while (position < input.length) {
    const code = input.charCodeAt(position);
    if (code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d) {
      position++;
    } else if (code === 0x23 /* # */) {
      const end = input.indexOf('\n', position);
      position = end === -1 ? input.length : end;
    } else {
      break;
    }
  }
  return position;
}
