// The public API of @agentv/viewer: named exports only.

export type { ExportOptions, ExportSummary } from './export/export-viewer.js';
export { exportViewer } from './export/export-viewer.js';
export type { ResultSources } from './server/result-catalog.js';
export type { Viewer, ViewerOptions } from './server/start-viewer.js';
export { startViewer } from './server/start-viewer.js';
