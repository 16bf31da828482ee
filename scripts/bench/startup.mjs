// SPEC 8: `agentv --version` within 2.5x of `node -e 0` on the same machine.
import { AGENTV, median, report, timed } from './support.mjs';

const RUNS = 15;
const nodeMs = median(RUNS, () => timed(process.execPath, ['-e', '0']).ms);
const versionMs = median(RUNS, () => timed(process.execPath, [AGENTV, '--version']).ms);
const ratio = versionMs / nodeMs;
console.log(
  `node -e 0: ${nodeMs.toFixed(1)} ms; agentv --version: ${versionMs.toFixed(1)} ms (medians of ${RUNS})`,
);
process.exitCode = report(
  'agentv --version / node -e 0',
  ratio.toFixed(2),
  'x',
  '<= 2.5x',
  ratio <= 2.5,
)
  ? 0
  : 1;
