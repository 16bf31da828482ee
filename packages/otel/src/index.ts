export { createTraceIntake, type TraceIntakeOptions } from './trace-intake.js';
