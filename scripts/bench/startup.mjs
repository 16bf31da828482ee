// Budget: `agentv --version` within 1.3x of `node -e 0` on the same machine. The two are timed
// in interleaved pairs and compared by their medians; every run's output is checked.
import { readFileSync } from 'node:fs';
import { AGENTV, interleaved, report, timed } from './support.mjs';

const RUNS = 15;
const expected = JSON.parse(
  readFileSync(new URL('../../apps/agentv/package.json', import.meta.url), 'utf8'),
).version;
const figures = await interleaved(
  {
    node: () => ({ ms: timed(process.execPath, ['-e', '0']).ms }),
    version: () => {
      const { ms, result } = timed(process.execPath, [AGENTV, '--version']);
      if (result.stdout.trim() !== expected) {
        throw new Error(
          `agentv --version printed ${JSON.stringify(result.stdout)}, expected ${expected}`,
        );
      }
      return { ms };
    },
  },
  RUNS,
);
const nodeMs = figures.node.ms;
const versionMs = figures.version.ms;
const ratio = versionMs / nodeMs;
console.log(
  `node -e 0: ${nodeMs.toFixed(1)} ms; agentv --version: ${versionMs.toFixed(1)} ms (medians of ${RUNS} interleaved rounds)`,
);
process.exitCode = report(
  'agentv --version / node -e 0',
  ratio.toFixed(2),
  'x',
  '<= 1.3x',
  ratio <= 1.3,
  {
    nodeMs,
    versionMs,
  },
)
  ? 0
  : 1;
