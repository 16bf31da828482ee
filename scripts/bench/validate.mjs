// Issue 6: `agentv validate` on 100 eval files of 100 cases each finishes well under 5 seconds.
// Times the built CLI end to end (process start included), median of 3 runs, for typical cases
// and for heavier ones (attached file, expected tool calls, two graders).
import { AGENTV, median, report, tempProject, timed } from './support.mjs';

const FILES = 100;
const CASES = 100;
const BUDGET_MS = 2500;

const TARGETS = `targets:
  - name: default
    provider: cli
    command_template: node agent.mjs --prompt {PROMPT} --out {OUTPUT_FILE}
`;

/** A typical case, as in the README's examples: two messages, an outcome, one grader. */
const typicalCase = (fileIndex, index) => [
  `  - id: case-${fileIndex}-${index}`,
  '    expected_outcome: The agent refunds the order and states the amount.',
  '    input_messages:',
  '      - role: system',
  '        content: You are a support agent.',
  '      - role: user',
  `        content: Please refund order ${index}, the headphones broke.`,
  '    evaluators:',
  '      - { name: amount, type: regex, pattern: "\\\\$\\\\d+" }',
];

/** A heavy case, like the quickstart's: an attached file, expected tool calls, two graders. */
const heavyCase = (fileIndex, index) => [
  `  - id: case-${fileIndex}-${index}`,
  '    expected_outcome: The agent refunds the order and states the amount.',
  '    input_messages:',
  '      - role: system',
  '        content: You are a support agent.',
  '      - role: user',
  '        content:',
  `          - { type: text, value: "Please refund order ${index}." }`,
  '          - { type: file, value: ./fixtures/order.json }',
  '    expected_messages:',
  '      - role: assistant',
  `        tool_calls: [{ tool: lookupOrder, input: { id: ${index} } }]`,
  '        content: Refunded.',
  '    evaluators:',
  '      - { name: amount, type: regex, pattern: "\\\\$\\\\d+" }',
  '      - { name: tools, type: tool_trajectory, mode: in_order, expected: [{ tool: lookupOrder }] }',
];

function evalFile(fileIndex, caseLines) {
  const lines = [
    '$schema: agentv-eval-v2',
    `description: Benchmark suite ${fileIndex}`,
    'execution:',
    '  target: default',
    'evalcases:',
  ];
  for (let index = 0; index < CASES; index++) lines.push(...caseLines(fileIndex, index));
  return `${lines.join('\n')}\n`;
}

/** Median wall time of `agentv validate` over a fresh project of FILES eval files. */
function measure(caseLines) {
  const files = {
    '.agentv/targets.yaml': TARGETS,
    // The target's script, which validate looks for in the eval files' folder (its cwd).
    'evals/agent.mjs': "console.log('refunded $20');\n",
    'evals/fixtures/order.json': '{"id": 1}\n',
  };
  for (let index = 0; index < FILES; index++) {
    files[`evals/suite-${index}.yaml`] = evalFile(index, caseLines);
  }
  const project = tempProject(files);
  try {
    return median(3, () => {
      const { ms, result } = timed(process.execPath, [AGENTV, 'validate'], {
        cwd: project.dir,
        okCodes: [0, 1],
      });
      const summary = result.stdout.trim().split('\n').at(-1);
      if (summary !== `${FILES + 1} files checked: no errors`) {
        throw new Error(`unexpected validate output:\n${result.stdout}${result.stderr}`);
      }
      return ms;
    });
  } finally {
    project.cleanup();
  }
}

let ok = true;
const typical = measure(typicalCase);
ok =
  report(
    `validate ${FILES} eval files x ${CASES} typical cases`,
    typical.toFixed(0),
    'ms',
    `< ${BUDGET_MS} ms (issue 6: well under 5 s)`,
    typical < BUDGET_MS,
  ) && ok;
const heavy = measure(heavyCase);
ok =
  report(
    `validate ${FILES} eval files x ${CASES} quickstart-sized cases`,
    heavy.toFixed(0),
    'ms',
    '< 5000 ms',
    heavy < 5000,
  ) && ok;
process.exitCode = ok ? 0 : 1;
