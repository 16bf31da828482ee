const KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\', $: '$' };

/**
 * Parses `.env` text: `KEY=value` and `export KEY=value` lines, `#` comments
 * and blank lines. Single-quoted values are literal; double-quoted values
 * expand `\n`, `\r`, `\t`, `\"`, `\\` and may span lines; unquoted values are
 * trimmed and end at ` #`. Lines that are not assignments are skipped. A
 * later assignment of a key replaces an earlier one.
 */
export function parseDotEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const assignment = line.replace(/^export\s+/, '');
    const equals = assignment.indexOf('=');
    if (equals <= 0) continue;
    const key = assignment.slice(0, equals).trim();
    if (!KEY.test(key)) continue;
    let rest = assignment.slice(equals + 1).trimStart();
    const quote = rest[0];
    if (quote === '"' || quote === "'") {
      // A quoted value may continue on the following lines until its closing quote.
      let close = findClosingQuote(rest, quote);
      while (close < 0 && index + 1 < lines.length) {
        index++;
        rest += `\n${lines[index]}`;
        close = findClosingQuote(rest, quote);
      }
      const body = close < 0 ? rest.slice(1) : rest.slice(1, close);
      env[key] = quote === '"' ? unescapeDouble(body) : body;
    } else {
      const comment = rest.search(/\s#/);
      env[key] = (comment < 0 ? rest : rest.slice(0, comment)).trim();
    }
  }
  return env;
}

function findClosingQuote(text: string, quote: string): number {
  for (let index = 1; index < text.length; index++) {
    if (quote === '"' && text[index] === '\\') {
      index++;
      continue;
    }
    if (text[index] === quote) return index;
  }
  return -1;
}

function unescapeDouble(body: string): string {
  return body.replace(/\\(.)/g, (sequence, char: string) => ESCAPES[char] ?? sequence);
}
