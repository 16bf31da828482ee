import { FAILSAFE_SCHEMA, load, type State, Type } from 'js-yaml';

/**
 * A node with its start as the `yaml` package reports it (`range[0]`, an
 * offset in the text) and its keys and children (node numbers for
 * `FastFrames.expand`). `exact: false` means its children could not be matched to
 * `yaml`'s nodes, and `start: -1` that its start could not be: a locator
 * then asks `yaml`.
 */
export interface FastNode {
  start: number;
  exact: boolean;
  /** A mapping's keys (as `String(key)`), their offsets and their values, in file order. */
  keys?: string[];
  keyStarts?: number[];
  values?: number[];
  /** A sequence's items. */
  items?: number[];
}

const SCALAR = 1;
const MAPPING = 2;
const SEQUENCE = 3;

/**
 * The nodes js-yaml read, numbered in the order it began them (0 is the
 * stream): where reading began and ended, their kind, value and parent, and
 * (after `link`) the tree as first child and next sibling. Plain numbers in
 * typed arrays, so recording a large file allocates almost nothing per node;
 * the listener only stores, and the checks run in one loop afterwards.
 */
export class FastFrames {
  count = 1;
  start: Int32Array;
  end: Int32Array;
  line: Int32Array;
  endLine: Int32Array;
  parent: Int32Array;
  kind: Uint8Array;
  childCount: Int32Array;
  firstChild: Int32Array;
  lastChild: Int32Array;
  nextSibling: Int32Array;
  results: unknown[] = [null];
  anchored = false;
  private readonly expanded = new Map<number, FastNode>();

  constructor(
    /** The text js-yaml read (without a byte order mark) and what to add to its offsets. */
    readonly input: string,
    readonly shift: number,
  ) {
    const capacity = Math.max(64, input.length >> 3);
    this.start = new Int32Array(capacity);
    this.end = new Int32Array(capacity);
    this.line = new Int32Array(capacity);
    this.endLine = new Int32Array(capacity);
    this.parent = new Int32Array(capacity);
    this.kind = new Uint8Array(capacity);
    this.childCount = new Int32Array(capacity);
    this.firstChild = new Int32Array(capacity);
    this.lastChild = new Int32Array(capacity);
    this.nextSibling = new Int32Array(capacity);
  }

  /**
   * The listener js-yaml calls as it begins ('open') and ends ('close') each
   * node. It only stores: it runs for every node of the file, mostly before
   * the JIT has compiled it. Sets `anchored` when a node has an anchor.
   */
  listener(): (event: string, state: State & { anchor: string | null }) => void {
    const stack: number[] = [0];
    let depth = 1;
    return (event, state) => {
      if (event === 'open') {
        if (this.count === this.start.length) this.grow();
        const index = this.count++;
        this.start[index] = state.position;
        this.line[index] = state.line;
        this.parent[index] = stack[depth - 1]!;
        this.results[index] = null;
        stack[depth++] = index;
        return;
      }
      const index = stack[--depth]!;
      this.end[index] = state.position;
      this.endLine[index] = state.line;
      const kind = state.kind;
      this.kind[index] =
        kind === 'scalar'
          ? SCALAR
          : kind === 'mapping'
            ? MAPPING
            : kind === 'sequence'
              ? SEQUENCE
              : 0;
      this.results[index] = state.result;
      if (state.anchor !== null) this.anchored = true;
    };
  }

  /** Builds the tree from the parents (children in the order they were read). */
  link(): void {
    for (let index = 1; index < this.count; index++) {
      const parent = this.parent[index]!;
      if (this.childCount[parent] === 0) this.firstChild[parent] = index;
      else this.nextSibling[this.lastChild[parent]!] = index;
      this.lastChild[parent] = index;
      this.childCount[parent]!++;
    }
  }

  /**
   * False when a node is read differently by `yaml`: see `supported`; with
   * `checkStarts`, also a node starting with a tag, anchor or alias.
   */
  allSupported(checkStarts: boolean): boolean {
    for (let index = 1; index < this.count; index++) {
      if (
        checkStarts &&
        PROPERTY.test(this.input.charAt(skipSpace(this.input, this.start[index]!)))
      ) {
        return false;
      }
      if (!this.supported(index)) return false;
    }
    return true;
  }

  /** The children of node `index`. */
  children(index: number): number[] {
    const children: number[] = [];
    let child = this.firstChild[index]!;
    for (let left = this.childCount[index]!; left > 0; left--) {
      children.push(child);
      child = this.nextSibling[child]!;
    }
    return children;
  }

  /** A value on its own line is read through a nested attempt that yields the same result. */
  isWrapper(index: number): boolean {
    if (this.childCount[index] !== 1) return false;
    const only = this.firstChild[index]!;
    return this.results[only] === this.results[index] && this.kind[only] === this.kind[index];
  }

  /** The node a wrapper stands for. */
  private unwrap(index: number): number {
    let inner = index;
    while (this.isWrapper(inner)) inner = this.firstChild[inner]!;
    return inner;
  }

  /** Where node `index` starts as `yaml` reports it; -1 when unknown. */
  startOf(index: number): number {
    const known = this.expanded.get(index);
    if (known !== undefined) return known.start;
    const inner = this.unwrap(index);
    const start = skipSpace(this.input, this.start[inner]!);
    // An empty value: `yaml` places it where its line's content ends.
    return this.results[inner] === null && start >= this.end[inner]! ? -1 : start + this.shift;
  }

  /** The start, keys and children of node `index` (computed once). */
  expand(index: number): FastNode {
    const known = this.expanded.get(index);
    if (known !== undefined) return known;
    const inner = this.unwrap(index);
    const result = this.results[inner];
    const start = this.startOf(inner);
    const node: FastNode = { start, exact: start >= 0 };
    const children = this.children(inner);
    if (this.kind[inner] === MAPPING) {
      if (children.length !== Object.keys(result as object).length * 2) {
        node.exact = false;
      } else {
        node.keys = [];
        node.keyStarts = [];
        node.values = [];
        for (let child = 0; child < children.length; child += 2) {
          const key = children[child]!;
          node.keys.push(this.results[key] as string);
          node.keyStarts.push(skipSpace(this.input, this.start[key]!) + this.shift);
          node.values.push(children[child + 1]!);
        }
      }
    } else if (this.kind[inner] === SEQUENCE) {
      if (children.length !== (result as unknown[]).length) node.exact = false;
      else node.items = children;
    }
    this.expanded.set(index, node);
    return node;
  }

  /**
   * True when `expand` knows every node exactly (its start, and a collection's children),
   * so that a locator never has to ask `yaml`.
   */
  allExact(): boolean {
    for (let index = 1; index < this.count; index++) {
      const inner = this.unwrap(index);
      if (this.startOf(inner) < 0) return false;
      const kind = this.kind[inner];
      const children = this.childCount[inner]!;
      if (kind === MAPPING) {
        if (children !== Object.keys(this.results[inner] as object).length * 2) return false;
      } else if (kind === SEQUENCE && children !== (this.results[inner] as unknown[]).length) {
        return false;
      }
    }
    return true;
  }

  /** False for what `yaml` reads differently: odd keys, and flow collections over several lines. */
  private supported(index: number): boolean {
    const kind = this.kind[index];
    if (kind !== MAPPING && kind !== SEQUENCE) return true;
    if (this.endLine[index] !== this.line[index]) {
      const first = this.input.charCodeAt(skipSpace(this.input, this.start[index]!));
      if (first === 0x5b /* [ */ || first === 0x7b /* { */) return false;
    }
    const count = this.childCount[index]!;
    if (kind === SEQUENCE || count === 0 || this.isWrapper(index)) return true;
    if (count % 2 !== 0) return false;
    // `yaml` turns other keys into other strings ("" for null, "[ x ]" for a list) and refuses
    // implicit keys over 1024 characters.
    let key = this.firstChild[index]!;
    for (let left = count; left > 0; left -= 2) {
      if (typeof this.results[key] !== 'string' || this.end[key]! - this.start[key]! > 1000) {
        return false;
      }
      key = this.nextSibling[this.nextSibling[key]!]!;
    }
    return true;
  }

  /** Frees what only `link` and `allSupported` use (a large file has millions of nodes). */
  dropBuildState(): void {
    this.line = new Int32Array(0);
    this.endLine = new Int32Array(0);
    this.parent = new Int32Array(0);
    this.lastChild = new Int32Array(0);
  }

  private grow(): void {
    const grow = <T extends Int32Array | Uint8Array>(array: T): T => {
      const bigger = new (array.constructor as new (length: number) => T)(array.length * 2);
      bigger.set(array);
      return bigger;
    };
    this.start = grow(this.start);
    this.end = grow(this.end);
    this.line = grow(this.line);
    this.endLine = grow(this.endLine);
    this.parent = grow(this.parent);
    this.kind = grow(this.kind);
    this.childCount = grow(this.childCount);
    this.firstChild = grow(this.firstChild);
    this.lastChild = grow(this.lastChild);
    this.nextSibling = grow(this.nextSibling);
  }
}

/** A file parsed by `loadFast`: its value and its nodes (the root mapping is `root`). */
export interface FastLoad {
  data: unknown;
  frames: FastFrames;
  root: number;
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

/** A node property or alias where a node starts, at a line start or after an indicator. */
const MAYBE_PROPERTY = /(?:^|[:\-?[{,])[ \t]*[!&*]/m;
const PROPERTY = /[!&*]/;

/**
 * Parses `text` with js-yaml (fast, no syntax tree) into the same value the
 * `yaml` package gives, recording where each node is read. Undefined
 * whenever the result might differ from `yaml`'s or `yaml` would report a
 * syntax error or warning: a js-yaml error (duplicate keys, several
 * documents, tabs…), directives, tags, anchors and aliases, keys that are not
 * text or longer than 1,000 characters, flow collections over several lines,
 * and a top level that is not a mapping. The caller then uses `yaml`.
 */
export function loadFast(text: string): FastLoad | undefined {
  if (/^%/m.test(text)) return undefined;
  // js-yaml drops a leading byte order mark; `yaml` counts it in offsets.
  const shift = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const input = shift === 1 ? text.slice(1) : text;
  // Tags and aliases show only at the start of a node: look there when the text may hold one.
  const checkStarts = MAYBE_PROPERTY.test(input);
  const frames = new FastFrames(input, shift);
  let data: unknown;
  try {
    data = load(text, {
      schema: CORE_SCHEMA,
      json: false,
      listener: frames.listener() as (event: string, state: State) => void,
    });
  } catch {
    return undefined;
  }
  if (frames.anchored || typeof data !== 'object' || data === null || Array.isArray(data)) {
    return undefined;
  }
  frames.link();
  if (frames.childCount[0] !== 1 || !frames.allSupported(checkStarts)) return undefined;
  frames.dropBuildState();
  return { data, frames, root: frames.firstChild[0]! };
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
