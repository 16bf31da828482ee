export type { BuiltPrompt } from './build-prompt.js';
export { buildPrompt } from './build-prompt.js';
export { messageText, referenceAnswer } from './message-text.js';
