import path from 'node:path';
import { UsageError } from '@agentv/core/internal';
import { runCommand } from 'citty';
import { afterEach, describe, expect, it, vi } from 'vitest';
import validate from './validate.js';

const PROJECT = path.join(import.meta.dirname, '..', 'validate', '__fixtures__', 'project');
const shown = (file: string) => path.relative(process.cwd(), path.join(PROJECT, file));

/** Runs `agentv validate` in this process through citty and captures what it prints. */
async function runValidate(rawArgs: string[]): Promise<{ result: unknown; stdout: string }> {
  let stdout = '';
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  try {
    const { result } = await runCommand(validate, { rawArgs });
    return { result, stdout };
  } finally {
    write.mockRestore();
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('agentv validate (in process)', () => {
  it('checks a folder recursively, reports every problem at once and returns 1', async () => {
    const { result, stdout } = await runValidate([PROJECT]);
    expect(result).toBe(1);
    expect(stdout.split('\n')).toEqual([
      `error: ${shown('.agentv/targets.yaml')}:9:5: target "editor": unknown provider "vscode" (hint: use one of: amazon-bedrock, anthropic, azure, azure-openai, bedrock, claude, claude-cli, claude-code, cli, codex, copilot, copilot-cli, deepseek, gemini, gemini-cli, google, google-gemini, google-vertex, groq, http, mistral, mock, openai, openai-compatible, opencode, openrouter, vertex, xai (used by ${shown('evals/nested/broken.yaml')}))`,
      `error: ${shown('evals/nested/broken.yaml')}:6:5: case "typo": missing required key "input_messages" (hint: add \`input_messages:\` with at least one message, e.g. \`- {role: user, content: "..."}\`, or a conversation (\`turns:\` / \`simulated_user:\`))`,
      `error: ${shown('evals/nested/broken.yaml')}:6:5: case "typo": has no evaluators (hint: add \`evaluators:\` to the case or \`execution.evaluators\` to the file, e.g. \`- { type: contains, value: "refund" }\`, or name a judge (\`--judge-target\`, \`execution.judge_target\` in the file, or \`judge_target\` on the target) to grade it with the default llm_judge)`,
      `warning: ${shown('evals/nested/broken.yaml')}:7:5: case "typo": unknown key "input_mesages" is ignored (hint: did you mean "input_messages"?)`,
      '4 files checked: 2 with errors (3 errors, 1 warning)',
      '',
    ]);
  });

  it('accepts original-format files and leaves an unused unknown provider a warning', async () => {
    const { result, stdout } = await runValidate([
      path.join(PROJECT, 'evals', 'valid.yaml'),
      path.join(PROJECT, '.agentv'),
    ]);
    expect(result).toBe(0);
    expect(stdout.split('\n')).toEqual([
      `warning: ${shown('.agentv/targets.yaml')}:9:5: target "editor": unknown provider "vscode"; this target cannot run with this AgentV (hint: use one of: amazon-bedrock, anthropic, azure, azure-openai, bedrock, claude, claude-cli, claude-code, cli, codex, copilot, copilot-cli, deepseek, gemini, gemini-cli, google, google-gemini, google-vertex, groq, http, mistral, mock, openai, openai-compatible, opencode, openrouter, vertex, xai, or leave it for runs that do not use it)`,
      '3 files checked: no errors (1 warning)',
      '',
    ]);
  });

  it('checks cases against the target given with --target', async () => {
    const { result, stdout } = await runValidate([
      path.join(PROJECT, 'evals', 'valid.yaml'),
      '--target',
      'staging',
    ]);
    expect(result).toBe(1);
    expect(stdout).toContain('error: --target: unknown target "staging" (hint: targets in ');
  });

  it('rejects a --targets file that does not exist and unknown flags as usage errors', async () => {
    const missingTargets = runValidate([PROJECT, '--targets', 'nope.yaml']);
    await expect(missingTargets).rejects.toBeInstanceOf(UsageError);
    await expect(missingTargets).rejects.toThrow('targets file nope.yaml does not exist');
    await expect(runValidate([PROJECT, '--taget', 'x'])).rejects.toThrow(
      'unknown option --taget for "agentv validate"',
    );
    await expect(runValidate([path.join(PROJECT, 'missing')])).rejects.toThrow(
      /^no eval, targets or config files match /,
    );
  });
});
