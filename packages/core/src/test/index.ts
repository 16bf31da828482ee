export { createMockProvider, mockProviderFactory } from '../provider/mock-provider.js';
