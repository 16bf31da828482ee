import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BIN } from '../support/project.js';

/**
 * Acceptance: every eval file under AgentV 4.42.4's `examples/` (copied into
 * fixtures/upstream-4.42.4, MIT, see its LICENSE) validates, or fails only for
 * the reasons listed here. Each problem `agentv validate` reports is sorted
 * into a kind; the kinds of each file (eval or targets file) must be exactly
 * the expected ones.
 */

const FIXTURE = path.join(import.meta.dirname, '..', 'fixtures', 'upstream-4.42.4');

/** Kinds of problems, the first matching pattern wins, with why the example fails on it. */
const KINDS: [kind: string, pattern: RegExp, reason: string][] = [
  [
    'refused:multi-turn',
    /multi-turn conversations/,
    'README: `mode: conversation` / `turns` refused',
  ],
  [
    'refused:skill-trigger',
    /grader type "skill-trigger" is not supported/,
    'README: skill-trigger refused',
  ],
  [
    'refused:field-accuracy',
    /grader type "field-accuracy" is not supported/,
    'README: field-accuracy refused',
  ],
  [
    'refused:token-usage',
    /grader type "token-usage" is not supported/,
    'README: token-usage refused',
  ],
  [
    'refused:grader-target',
    /grader option "target" is not supported/,
    "README: a grader's `target` refused",
  ],
  [
    'refused:code-grader-target',
    /a code grader calling targets/,
    "README: a grader's `target` refused",
  ],
  [
    'refused:rubric-option',
    /rubric option "/,
    'README: rubric `operator` / `min_score` / `score_ranges` refused',
  ],
  [
    'refused:threshold-aggregator',
    /composite aggregator "threshold"|aggregator\.type" must be one of weighted_average/,
    'README: the `threshold` aggregator refused',
  ],
  ['refused:skip_defaults', /`skip_defaults` is not supported/, 'README: `skip_defaults` refused'],
  ['refused:preprocessors', /preprocessors are not supported/, 'README: `preprocessors` refused'],
  [
    'refused:target-mappings',
    /targets written as mappings/,
    'README: targets written as mappings refused',
  ],
  [
    'refused:grader-threshold',
    /"threshold" is not a grader option here/,
    "a grader's own pass mark (README, Graders)",
  ],
  [
    'refused:custom-grader-type',
    /has unknown type "word-count"/,
    'a TypeScript grader of `.agentv/graders/` (README: inline-assert refused)',
  ],
  [
    'provider:unknown-kind',
    /unknown provider "/,
    'README: provider kinds AgentV 4.x added (copilot-cli, replay, copilot-log…) are unknown here',
  ],
  [
    'refused:trajectory-option',
    /has unknown key "(max_duration_ms|output|args_match|argsMatch)"|must be one of any_order, in_order, exact/,
    "README: upstream tool_trajectory's per-call `max_duration_ms`, `output`, `args_match` and the `subset` / `superset` modes are refused",
  ],
  [
    'judge:none',
    /needs a judge target, and none is configured|has no (evaluators|assertions)/,
    'a cli target with an LLM grader and no grader_target: AgentV 4.42 fails such cases when they run',
  ],
  [
    'judge:missing-target',
    /judge target "[^"]*" \(from judge_target of target/,
    'grader_target names a target of another targets file (AgentV 4.42 then has no grader and fails the LLM graders when they run)',
  ],
  [
    'cli:quoted-output-file',
    /\{OUTPUT_FILE\} is inside single quotes/,
    'the cli provider refuses a placeholder inside a quoted shell script (README, cli targets)',
  ],
  [
    'target:unknown',
    /unknown target "|no target given and no target named "default"/,
    'the example names a target that no targets file it finds defines',
  ],
  [
    'gap:llm-grader-command-prompt',
    /"prompt" must be a prompt template or the path of a template file/,
    'not done: an llm-grader prompt written as a command (a TypeScript prompt builder)',
  ],
  [
    'gap:rubric-score-ranges-item',
    /rubric item \d+: "description" is missing/,
    'not done: score_ranges rubric items without `outcome`',
  ],
  [
    'gap:input-content',
    /is missing required key "content"/,
    'not done: a message whose `content` is an unset environment reference',
  ],
  [
    'gap:missing-script',
    /script file .* not found/,
    'the example names a grader script it does not ship',
  ],
];

/** Problems that depend on the machine (a program on PATH), not on the files. */
const MACHINE = /was not found on PATH|is not installed/;

/** File → the kinds of its errors under the environment below. */
const EXPECTED: Record<string, string[]> = {
  'examples/contract/evals/code-grader-contract.eval.yaml': [],
  'examples/contract/evals/release-gate.eval.yaml': [],
  'examples/contract/evals/repo-materialization.eval.yaml': [],
  'examples/features/agent-skills-evals/csv-analyzer.EVAL.yaml': ['refused:skill-trigger'],
  'examples/features/agent-skills-evals/multi-provider-skill-trigger.EVAL.yaml': [
    'refused:skill-trigger',
  ],
  'examples/features/assert-extended/evals/dataset.eval.yaml': [],
  'examples/features/assert/evals/dataset.eval.yaml': [],
  'examples/features/autoresearch/EVAL.yaml': [],
  'examples/features/basic-jsonl/evals/dataset.eval.yaml': ['target:unknown'],
  'examples/features/basic/evals/dataset.eval.yaml': [],
  'examples/features/batch-cli/evals/dataset.eval.yaml': [],
  'examples/features/benchmark-tooling/evals/benchmark.eval.yaml': [],
  'examples/features/code-grader-sdk/evals/dataset.eval.yaml': [],
  'examples/features/code-grader-with-llm-calls/evals/contextual-precision.eval.yaml': [
    'refused:code-grader-target',
  ],
  'examples/features/code-grader-with-llm-calls/evals/contextual-recall.eval.yaml': [
    'refused:code-grader-target',
  ],
  'examples/features/compare/evals/dataset.eval.yaml': [],
  'examples/features/composite/evals/dataset.eval.yaml': [],
  'examples/features/copilot-log-eval/evals/skill-trigger.EVAL.yaml': ['refused:skill-trigger'],
  'examples/features/default-graders/evals/dataset.eval.yaml': ['refused:skip_defaults'],
  'examples/features/deterministic-graders/evals/dataset.eval.yaml': [],
  'examples/features/docker-workspace/evals/docker-example.EVAL.yaml': ['target:unknown'],
  'examples/features/document-extraction/evals/confusion-metrics.eval.yaml': [],
  'examples/features/document-extraction/evals/field-accuracy.eval.yaml': [
    'judge:none',
    'refused:field-accuracy',
    'refused:grader-threshold',
  ],
  'examples/features/env-interpolation/evals/dataset.eval.yaml': ['gap:input-content'],
  'examples/features/eval-assert-demo/evals/dataset.eval.yaml': [],
  'examples/features/execution-metrics/evals/dataset.eval.yaml': [],
  'examples/features/experiments/evals/coding-ability.eval.yaml': [],
  'examples/features/external-datasets/evals/dataset.eval.yaml': [],
  'examples/features/file-changes-graders/evals/dataset.eval.yaml': ['refused:grader-target'],
  'examples/features/file-changes-with-repos/evals/eval.yaml': [],
  'examples/features/file-changes/evals/dataset.eval.yaml': [],
  'examples/features/functional-grading/evals/dataset.eval.yaml': [],
  'examples/features/import-claude/evals/transcript-check.EVAL.yaml': ['gap:missing-script'],
  'examples/features/input-files-shorthand/evals/dataset.eval.yaml': [],
  'examples/features/langfuse-export/evals/eval.yaml': [],
  'examples/features/latency-assertions/evals/dataset.eval.yaml': ['refused:trajectory-option'],
  'examples/features/local-cli/evals/dataset.eval.yaml': [],
  'examples/features/matrix-evaluation/evals/dataset.eval.yaml': [],
  'examples/features/multi-turn-conversation-live/evals/dataset.eval.yaml': ['refused:multi-turn'],
  'examples/features/multi-turn-conversation/evals/dataset.eval.yaml': [],
  'examples/features/nlp-metrics/evals/dataset.eval.yaml': [],
  'examples/features/preprocessors/evals/dataset.eval.yaml': [
    'refused:preprocessors',
    'target:unknown',
  ],
  'examples/features/prompt-template-sdk/evals/dataset.eval.yaml': [
    'gap:llm-grader-command-prompt',
  ],
  'examples/features/repo-lifecycle/evals/dataset.eval.yaml': [],
  'examples/features/repo-lifecycle/evals/pool-e2e.eval.yaml': [],
  'examples/features/rubric/evals/dataset.eval.yaml': [
    'gap:rubric-score-ranges-item',
    'refused:rubric-option',
  ],
  'examples/features/rubric/evals/operators.eval.yaml': ['refused:rubric-option'],
  'examples/features/sdk-config-file/evals/dataset.eval.yaml': [],
  'examples/features/sdk-custom-assertion/evals/dataset.eval.yaml': ['refused:custom-grader-type'],
  'examples/features/sdk-python/evals/dataset.eval.yaml': [],
  'examples/features/suite-level-input-files/evals/dataset.eval.yaml': ['refused:skip_defaults'],
  'examples/features/suite-level-input/evals/dataset.eval.yaml': ['refused:skip_defaults'],
  'examples/features/test-vars-templating/evals/dataset.eval.yaml': [],
  'examples/features/threshold-grader/evals/dataset.eval.yaml': ['refused:threshold-aggregator'],
  'examples/features/tool-calls-template/evals/eval.yaml': [],
  'examples/features/tool-evaluation-plugins/evals/dataset.eval.yaml': [],
  'examples/features/tool-trajectory-advanced/evals/trace-file-demo.eval.yaml': [
    'refused:trajectory-option',
  ],
  'examples/features/tool-trajectory-simple/evals/dataset.eval.yaml': ['refused:trajectory-option'],
  'examples/features/trace-analysis/evals/dataset.eval.yaml': [],
  'examples/features/trace-evaluation/evals/dataset.eval.yaml': [],
  'examples/features/trial-output-consistency/evals/dataset.eval.yaml': [],
  'examples/features/trials/evals/dataset.eval.yaml': [],
  'examples/features/weighted-graders/evals/dataset.eval.yaml': [],
  'examples/features/workspace-artifact/evals/eval.yaml': [],
  'examples/features/workspace-multi-repo/evals/dataset.eval.yaml': [],
  'examples/features/workspace-setup-script/evals/dataset-vscode.eval.yaml': [],
  'examples/features/workspace-setup-script/evals/dataset.eval.yaml': [],
  'examples/features/workspace-shared-config/evals/accuracy/dataset.eval.yaml': [],
  'examples/features/workspace-shared-config/evals/regression/dataset.eval.yaml': [],
  'examples/red-team/archetypes/coding-agent/suites/backdoor-pr.eval.yaml': [],
  'examples/red-team/archetypes/coding-agent/suites/benign-controls.eval.yaml': [],
  'examples/red-team/archetypes/coding-agent/suites/destructive-git.eval.yaml': [
    'refused:trajectory-option',
  ],
  'examples/red-team/archetypes/coding-agent/suites/mcp-tool-description-poisoning.eval.yaml': [],
  'examples/red-team/archetypes/coding-agent/suites/readme-issue-url-injection.eval.yaml': [],
  'examples/red-team/archetypes/coding-agent/suites/sandbox-escape.eval.yaml': [],
  'examples/red-team/archetypes/coding-agent/suites/screenshot-pii-upload.eval.yaml': [],
  'examples/red-team/archetypes/coding-agent/suites/secrets-exfiltration.eval.yaml': [],
  'examples/red-team/archetypes/coding-agent/suites/supply-chain-slopsquatting.eval.yaml': [],
  'examples/red-team/archetypes/customer-facing-agent/suites/benign-controls.eval.yaml': [],
  'examples/red-team/archetypes/customer-facing-agent/suites/bola-bfla.eval.yaml': [],
  'examples/red-team/archetypes/customer-facing-agent/suites/compliance-boundary-violation.eval.yaml':
    [],
  'examples/red-team/archetypes/customer-facing-agent/suites/cross-session-leak.eval.yaml': [],
  'examples/red-team/archetypes/customer-facing-agent/suites/escalation-hijack.eval.yaml': [],
  'examples/red-team/archetypes/customer-facing-agent/suites/pii-cross-customer-disclosure.eval.yaml':
    [],
  'examples/red-team/archetypes/customer-facing-agent/suites/support-doc-indirect-injection.eval.yaml':
    [],
  'examples/red-team/archetypes/customer-facing-agent/suites/unauthorized-action-social-engineering.eval.yaml':
    [],
  'examples/red-team/suites/agentic-memory-poisoning.eval.yaml': [],
  'examples/red-team/suites/agentic-tool-misuse.eval.yaml': [],
  'examples/red-team/suites/atlas-v5.4-agentic.eval.yaml': [],
  'examples/red-team/suites/llm01-prompt-injection.eval.yaml': [],
  'examples/red-team/suites/llm02-insecure-output.eval.yaml': [],
  'examples/red-team/suites/llm06-excessive-agency.eval.yaml': [],
  'examples/red-team/suites/llm07-system-prompt-leakage.eval.yaml': [],
  'examples/red-team/suites/llm08-vector-embedding.eval.yaml': [],
  'examples/red-team/suites/llm10-unbounded-consumption.eval.yaml': [],
  'examples/showcase/bug-fix-benchmark/evals/bug-fixes.eval.yaml': ['refused:target-mappings'],
  'examples/showcase/cross-repo-sync/evals/dataset.eval.yaml': [],
  'examples/showcase/cw-incident-triage/evals/dataset.eval.yaml': [],
  'examples/showcase/directory-discovery/EVAL.yaml': [],
  'examples/showcase/export-screening/evals/dataset.eval.yaml': [],
  'examples/showcase/grader-conformance/EVAL.yaml': [],
  'examples/showcase/multi-model-benchmark/evals/benchmark.eval.yaml': ['target:unknown'],
  'examples/showcase/offline-grader-benchmark/evals/setup-a.eval.yaml': [
    'refused:grader-target',
    'refused:threshold-aggregator',
  ],
  'examples/showcase/offline-grader-benchmark/evals/setup-b.eval.yaml': [
    'refused:grader-target',
    'refused:threshold-aggregator',
  ],
  'examples/showcase/psychotherapy/evals/encouragement.eval.yaml': ['target:unknown'],
  'examples/showcase/psychotherapy/evals/listening.eval.yaml': ['target:unknown'],
  'examples/showcase/psychotherapy/evals/routing.eval.yaml': ['target:unknown'],
  'examples/showcase/tool-evaluation-plugins/tool-eval-demo.eval.yaml': ['target:unknown'],
  'examples/showcase/trace-evaluation/evals/coding-agent-replay.eval.yaml': [
    'refused:trajectory-option',
  ],
  'examples/showcase/trace-evaluation/evals/transcript-import.eval.yaml': ['target:unknown'],
  '.agentv/targets.yaml': [],
  'examples/features/copilot-log-eval/.agentv/targets.yaml': ['provider:unknown-kind'],
  'examples/features/file-changes-graders/.agentv/targets.yaml': [
    'cli:quoted-output-file',
    'judge:missing-target',
  ],
  'examples/features/file-changes-with-repos/.agentv/targets.yaml': ['cli:quoted-output-file'],
  'examples/features/file-changes/.agentv/targets.yaml': ['cli:quoted-output-file'],
  'examples/features/functional-grading/.agentv/targets.yaml': ['cli:quoted-output-file'],
  'examples/features/local-cli/.agentv/targets.yaml': ['judge:missing-target'],
  'examples/features/workspace-artifact/.agentv/targets.yaml': ['cli:quoted-output-file'],
  'examples/showcase/offline-grader-benchmark/.agentv/targets.yaml': ['judge:missing-target'],
  'examples/showcase/trace-evaluation/.agentv/targets.yaml': ['provider:unknown-kind'],
};

/** What AgentV 4.x's root targets file delegates to: an LLM kind, so LLM targets judge themselves. */
const ENV = { AGENT_TARGET: 'azure', LLM_TARGET: 'azure', GRADER_TARGET: 'azure' };

function kindOf(message: string): string {
  for (const [kind, pattern] of KINDS) if (pattern.test(message)) return kind;
  return `unexpected: ${message}`;
}

async function validate(cwd: string, files: string[]): Promise<string> {
  const run = await promisify(execFile)(process.execPath, [BIN, 'validate', ...files], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', ...ENV },
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout: string; stderr: string }) => error);
  return `${run.stdout}\n${run.stderr}`;
}

describe("AgentV 4.42.4's examples", () => {
  it('validate, or fail only for the listed reasons', { timeout: 300_000 }, async () => {
    const evalFiles = Object.keys(EXPECTED).filter((file) => !file.endsWith('targets.yaml'));
    const output = await validate(FIXTURE, evalFiles);
    const found: Record<string, Set<string>> = {};
    for (const line of output.split('\n')) {
      if (!line.startsWith('error: ') || MACHINE.test(line)) continue;
      const file = line.slice('error: '.length).split(':')[0]!;
      const kinds = found[file] ?? new Set<string>();
      kinds.add(kindOf(line));
      found[file] = kinds;
    }
    const expected = Object.fromEntries(
      Object.entries(EXPECTED).filter(([, kinds]) => kinds.length > 0),
    );
    const actual = Object.fromEntries(
      Object.entries(found).map(([file, kinds]) => [file, [...kinds].sort()]),
    );
    expect(actual).toEqual(expected);
    // Every kind met has its reason listed.
    for (const kinds of Object.values(actual)) {
      for (const kind of kinds) expect(KINDS.map(([name]) => name)).toContain(kind);
    }
  });
});
