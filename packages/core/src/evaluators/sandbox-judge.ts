import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { stderrSummary } from '../process/stderr-excerpt.js';
import { SANDBOX_WORKSPACE, type Sandbox } from '../sandbox/sandbox-runtime.js';
import { anchorScriptFile } from './anchor-script-file.js';
import { buildCodeJudgePayload } from './code-judge-payload.js';
import type { EvaluationContext, EvaluationScore } from './evaluator.js';
import { EvaluatorError } from './evaluator-error.js';
import { parseJudgeOutput } from './parse-judge-output.js';
import { describeScript } from './run-judge-script.js';
import { execForGrader, sandboxCwd } from './sandbox-grader.js';

const MAX_STDOUT_BYTES = 8 * 1024 * 1024;
const MAX_STDERR_BYTES = 1024 * 1024;

/**
 * A `code_judge` with `in_sandbox: true`: its script file (found from the
 * eval file's folder, as `validate` checks it) is copied into the
 * container's exchange folder for the call, and the script runs inside with
 * `/workspace` as working directory (`cwd` relative to it), `workspace_path`
 * and `AGENTV_WORKSPACE`. The interpreter it names must be in the image.
 */
export async function judgeInSandbox(
  options: { script: string | string[]; cwd?: string; timeoutSeconds: number },
  context: EvaluationContext,
  sandbox: Sandbox,
  evalDirectory: string,
): Promise<EvaluationScore> {
  const label = describeScript(options.script);
  if (context.signal?.aborted) {
    throw new EvaluatorError(`${label} was not started: the run was interrupted`);
  }
  const exchange = sandbox.exchange;
  const name = `judge-${randomBytes(6).toString('hex')}`;
  const hostDir = exchange === undefined ? undefined : path.join(exchange.hostPath, name);
  try {
    const script = anchorScriptFile(options.script, evalDirectory, (absolute) => {
      if (hostDir === undefined || exchange === undefined || !existsSync(absolute)) return absolute;
      mkdirSync(hostDir, { recursive: true, mode: 0o755 });
      const copy = path.join(hostDir, path.basename(absolute));
      copyFileSync(absolute, copy);
      // Any user of the image may run it.
      chmodSync(copy, 0o755);
      return path.posix.join(exchange.path, name, path.basename(absolute));
    });
    const workspace = context.workspace!;
    const payload = buildCodeJudgePayload({
      ...context,
      workspace: { ...workspace, path: SANDBOX_WORKSPACE },
    });
    const outcome = await execForGrader(
      sandbox,
      {
        command: script,
        cwd: sandboxCwd(options.cwd),
        env: { AGENTV_WORKSPACE: SANDBOX_WORKSPACE },
        stdin: JSON.stringify(payload),
        timeoutMs: options.timeoutSeconds * 1000,
        ...(context.signal === undefined ? {} : { signal: context.signal }),
        maxStdoutBytes: MAX_STDOUT_BYTES,
        maxStderrBytes: MAX_STDERR_BYTES,
      },
      label,
    );
    if (outcome.timedOut) {
      throw new EvaluatorError(
        `${label} timed out after ${options.timeoutSeconds}s in the case's container and was stopped; make it faster or raise timeout_seconds`,
      );
    }
    if (outcome.aborted) throw new EvaluatorError(`${label} was stopped: the run was interrupted`);
    if (outcome.exitCode !== 0) {
      const how =
        outcome.exitCode === undefined
          ? `was killed (${outcome.signalName})`
          : `exited with code ${outcome.exitCode}`;
      const stderr = stderrSummary(outcome.stderr, 600) || 'it printed nothing on stderr';
      throw new EvaluatorError(`${label} ${how} in the case's container; ${stderr}`, {
        hint: 'it ran inside the container (in_sandbox: true): its interpreter must be in the image; relative paths other than its script file are read from /workspace',
      });
    }
    return parseJudgeOutput(outcome.stdout, label);
  } finally {
    if (hostDir !== undefined) rmSync(hostDir, { recursive: true, force: true });
  }
}
