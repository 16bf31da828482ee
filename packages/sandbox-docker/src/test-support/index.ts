// @agentv/sandbox-docker/test-support: a Docker engine of the tests' own, for this package's
// tests, the CLI's end-to-end tests and the bench. Built into dist/ but never published.
export type { TestEngine } from './docker-engine.js';
export {
  importNodeImage,
  importTestImage,
  missingForEngine,
  startTestEngine,
  TEST_IMAGE,
} from './docker-engine.js';
export type { EngineForTests } from './engine-for-tests.js';
export { dockerRequired, startEngineForTests } from './engine-for-tests.js';
