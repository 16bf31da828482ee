#!/usr/bin/env node
// Runs the example offline: starts the fake model, then `agentv eval` on evals/weather.yaml
// with OPENAI_BASE_URL pointing at it. Extra arguments go to agentv (e.g. --target genai).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startFakeModel } from './fake-model.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const model = await startFakeModel();
const agentv = fileURLToPath(new URL('../../apps/agentv/bin/agentv.cjs', import.meta.url));
const child = spawn(
  process.execPath,
  [agentv, 'eval', 'evals/weather.yaml', ...process.argv.slice(2)],
  {
    cwd: here,
    stdio: 'inherit',
    env: { ...process.env, OPENAI_BASE_URL: model.baseUrl },
  },
);
const code = await new Promise((resolve) => child.on('exit', (status) => resolve(status ?? 2)));
await model.close();
process.exit(code);
