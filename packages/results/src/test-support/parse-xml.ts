/** An element of a parsed XML document. */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_][\w.-]*/;
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

/**
 * A small strict XML 1.0 parser for tests: elements, attributes, text,
 * character and the five predefined entity references, an optional `<?xml?>`
 * declaration. Throws on anything not well-formed (unescaped `<` or `&`,
 * mismatched tags, forbidden characters, duplicate attributes, content after
 * the root element).
 */
export function parseXml(source: string): XmlElement {
  if (FORBIDDEN.test(source)) throw new Error('document contains a character XML 1.0 forbids');
  let index = 0;
  const fail = (message: string): never => {
    throw new Error(
      `${message} at offset ${index}: ${JSON.stringify(source.slice(index, index + 40))}`,
    );
  };
  const skipSpace = () => {
    while (/\s/.test(source[index] ?? '')) index++;
  };

  if (source.startsWith('<?xml')) {
    const end = source.indexOf('?>');
    if (end === -1) fail('unterminated declaration');
    index = end + 2;
  }
  skipSpace();

  const element = (): XmlElement => {
    if (source[index] !== '<') fail('expected an element');
    index++;
    const name = NAME.exec(source.slice(index))?.[0] ?? fail('expected an element name');
    index += name.length;
    const node: XmlElement = { name, attributes: {}, children: [], text: '' };
    for (;;) {
      skipSpace();
      if (source.startsWith('/>', index)) {
        index += 2;
        return node;
      }
      if (source[index] === '>') {
        index++;
        break;
      }
      const attribute = NAME.exec(source.slice(index))?.[0] ?? fail('expected an attribute');
      index += attribute.length;
      skipSpace();
      if (source[index] !== '=') fail('expected =');
      index++;
      skipSpace();
      const quote = source[index];
      if (quote !== '"' && quote !== "'") fail('expected a quoted value');
      const end = source.indexOf(quote!, index + 1);
      if (end === -1) fail('unterminated attribute value');
      const raw = source.slice(index + 1, end);
      if (raw.includes('<')) fail('< inside an attribute value');
      if (attribute in node.attributes) fail(`duplicate attribute ${attribute}`);
      node.attributes[attribute] = decode(raw, fail);
      index = end + 1;
    }
    for (;;) {
      const next = source.indexOf('<', index);
      if (next === -1) fail(`unclosed element <${name}>`);
      node.text += decode(source.slice(index, next), fail);
      index = next;
      if (source.startsWith('</', index)) {
        index += 2;
        if (!source.startsWith(name, index)) fail(`expected </${name}>`);
        index += name.length;
        skipSpace();
        if (source[index] !== '>') fail('expected >');
        index++;
        return node;
      }
      node.children.push(element());
    }
  };

  const root = element();
  skipSpace();
  if (index !== source.length) fail('content after the root element');
  return root;
}

function decode(text: string, fail: (message: string) => never): string {
  if (text.includes('>') && /]]>/.test(text)) fail(']]> in text');
  return text.replace(/&([^;&\s]*);?/g, (match, entity: string) => {
    if (!match.endsWith(';')) fail(`bare & in ${JSON.stringify(text.slice(0, 40))}`);
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (entity in named) return named[entity]!;
    const code = /^#x([0-9a-f]+)$/i.exec(entity)?.[1];
    const decimal = /^#(\d+)$/.exec(entity)?.[1];
    if (code !== undefined) return String.fromCodePoint(Number.parseInt(code, 16));
    if (decimal !== undefined) return String.fromCodePoint(Number(decimal));
    return fail(`unknown entity &${entity};`);
  });
}

/** Every element named `name` below `root` (depth first). */
export function elementsNamed(root: XmlElement, name: string): XmlElement[] {
  const found: XmlElement[] = [];
  const visit = (node: XmlElement) => {
    for (const child of node.children) {
      if (child.name === name) found.push(child);
      visit(child);
    }
  };
  visit(root);
  return found;
}
