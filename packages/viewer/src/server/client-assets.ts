import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** The built client: the page, its script and its style (`scripts/build-client.mjs`). */
export interface ClientAssets {
  html: string;
  js: string;
  css: string;
}

let loaded: Promise<ClientAssets> | undefined;

/**
 * Reads the client the package's build wrote to `dist/client/`. Found through the
 * package's own name, so it resolves the same from `dist/` and from a bundle that
 * holds this code (the `agentv` CLI's).
 */
export function clientAssets(): Promise<ClientAssets> {
  loaded ??= (async () => {
    const folder = fileURLToPath(
      new URL('./dist/client/', import.meta.resolve('@agentv/viewer/package.json')),
    );
    const [html, js, css] = await Promise.all(
      ['index.html', 'app.js', 'app.css'].map((name) => readFile(`${folder}${name}`, 'utf8')),
    );
    return { html: html!, js: js!, css: css! };
  })();
  return loaded;
}
