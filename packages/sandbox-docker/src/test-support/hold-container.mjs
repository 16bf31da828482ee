// Makes one container through the built runtime, prints its id, and waits to be killed.
import { createDockerRuntime } from '../../dist/index.js';

const runtime = await createDockerRuntime({
  env: { DOCKER_HOST: process.argv[2] },
  home: '/nonexistent',
});
const sandbox = await runtime.create({ image: process.argv[3], runId: 'killed-run' });
process.stdout.write(`${sandbox.id}\n`);
setInterval(() => {}, 60_000);
