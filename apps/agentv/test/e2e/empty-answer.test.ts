import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, parseJsonl, runAgentv } from '../support/project.js';

// Issue 22, point 7: an agent that exits 0 without an answer is treated the same way
// whether it answers on stdout or in {OUTPUT_FILE}: the case errors (it is not graded
// as if the agent had answered ""), and `{"text": ""}` is how to answer "" on purpose.

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

/** `node agent.mjs MODE [OUT]`: prints or writes nothing, whitespace, or an explicit "". */
const AGENT = `
import { writeFileSync } from 'node:fs';
const [mode, out] = process.argv.slice(2);
const answer = { nothing: '', blank: ' \\n', empty: '{"text": ""}', silent: undefined }[mode];
console.error('agent ran in mode ' + mode);
if (answer === undefined) process.exit(0);
if (out) writeFileSync(out, answer);
else process.stdout.write(answer);
`;

const EVAL = `evalcases:
${['nothing', 'blank', 'empty', 'silent']
  .map(
    (id) => `  - id: ${id}
    input_messages: [{ role: user, content: ${id} }]
    evaluators: [{ type: equals, value: "" }]
`,
  )
  .join('')}`;

const targets = (template: string) => `targets:
  - name: default
    provider: cli
    cwd: ..
    max_retries: 0
    command_template: ${template}
`;

async function run(template: string) {
  project = await createProject({
    'agent.mjs': AGENT,
    '.agentv/targets.yaml': targets(template),
    'evals/empty.yaml': EVAL,
  });
  const result = await runAgentv(['eval', 'evals/empty.yaml', '--out', 'out.jsonl'], project.dir);
  expect(result.code).toBe(2);
  const lines = parseJsonl(await readFile(project.file('out.jsonl'), 'utf8'));
  return new Map(lines.map((line) => [String(line.eval_id), line]));
}

describe('an agent that exits 0 without an answer', () => {
  it('errors on stdout mode: nothing or only whitespace printed', async () => {
    const byId = await run('node agent.mjs {PROMPT}');
    const hint =
      '(hint: print the answer on stdout, or write {"text": ""} to answer with an empty string on purpose)';
    expect(byId.get('nothing')!.error).toBe(
      `the command exited with code 0 but printed nothing on stdout; stderr: agent ran in mode nothing ${hint}`,
    );
    expect(byId.get('blank')!.error).toBe(
      `the command exited with code 0 but printed only whitespace on stdout; stderr: agent ran in mode blank ${hint}`,
    );
    expect(byId.get('silent')!.error).toBe(
      `the command exited with code 0 but printed nothing on stdout; stderr: agent ran in mode silent ${hint}`,
    );
    for (const id of ['nothing', 'blank', 'silent']) {
      expect(byId.get(id)!.passed).toBe(false);
      expect(byId.get(id)!.attempts).toBe(1);
    }
    // Answering "" on purpose is graded like any answer.
    expect(byId.get('empty')!.error ?? null).toBeNull();
    expect(byId.get('empty')!.candidate_answer).toBe('');
    expect(byId.get('empty')!.passed).toBe(true);
  });

  it('errors the same way in {OUTPUT_FILE} mode: the file left empty, blank or not written', async () => {
    const byId = await run('node agent.mjs {PROMPT} {OUTPUT_FILE}');
    const hint =
      '(hint: make the command write its answer to the path it is given for {OUTPUT_FILE} (or remove {OUTPUT_FILE} from command_template to read stdout instead); write {"text": ""} to answer with an empty string on purpose)';
    expect(byId.get('nothing')!.error).toMatch(
      /^the command exited with code 0 but wrote nothing to \{OUTPUT_FILE\} \(\/.*\/output\.txt\); stderr: agent ran in mode nothing \(hint: /,
    );
    expect(byId.get('blank')!.error).toMatch(
      /^the command exited with code 0 but wrote only whitespace to \{OUTPUT_FILE\} \(.*\); stderr: agent ran in mode blank/,
    );
    expect(byId.get('silent')!.error).toMatch(
      /^the command exited with code 0 but did not write \{OUTPUT_FILE\} \(.*\); stderr: agent ran in mode silent/,
    );
    for (const id of ['nothing', 'blank', 'silent']) {
      expect(String(byId.get(id)!.error).endsWith(hint)).toBe(true);
      expect(byId.get(id)!.passed).toBe(false);
      expect(byId.get(id)!.attempts).toBe(1);
    }
    expect(byId.get('empty')!.error ?? null).toBeNull();
    expect(byId.get('empty')!.candidate_answer).toBe('');
    expect(byId.get('empty')!.passed).toBe(true);
  });
});
