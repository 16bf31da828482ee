export { otlpJsonTrace } from './otlp-json-trace.js';
export {
  createRunExporter,
  type ExportReport,
  type RunExporter,
  type RunExporterOptions,
  tracesUrl,
} from './run-exporter.js';
export { createTraceIntake, type TraceIntakeOptions } from './trace-intake.js';
