// Builds the browser client into dist/client/ after tsc has built the server: the page, one
// script (Preact and the app, minified) and one style sheet. Everything the page loads is served by
// the viewer itself (or sits beside the page in an export): no CDN, works offline.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { build } from 'rolldown';

const out = 'dist/client';
mkdirSync(out, { recursive: true });
await build({
  input: 'src/client/main.tsx',
  platform: 'browser',
  logLevel: 'warn',
  tsconfig: 'tsconfig.client.json',
  output: { file: `${out}/app.js`, format: 'iife', minify: true },
});
copyFileSync('src/client/app.css', `${out}/app.css`);
writeFileSync(
  `${out}/index.html`,
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>AgentV</title>
<link rel="stylesheet" href="app.css">
</head>
<body>
<div id="app"></div>
<script src="data/index.js"></script>
<script src="app.js"></script>
</body>
</html>
`,
);
