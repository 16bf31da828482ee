import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project, runAgentv } from '../support/project.js';

// `trace: { source: otlp, port: N }`: the receiver on a port of the user's choice, a clear
// error when another program holds it, and validate checking the value.

const projects: Project[] = [];
let holder: Server | undefined;
afterEach(async () => {
  await Promise.all(projects.splice(0).map((project) => project.cleanup()));
  await new Promise((resolve) => (holder ? holder.close(resolve) : resolve(undefined)));
  holder = undefined;
});

async function projectWith(trace: string): Promise<Project> {
  const project = await createProject({
    '.agentv/targets.yaml': `targets:\n  - name: default\n    provider: cli\n    command_template: node -e "console.log(process.env.OTEL_EXPORTER_OTLP_ENDPOINT)"\n    trace: ${trace}\n`,
    'evals/one.yaml':
      'evalcases:\n  - id: one\n    input_messages: [{ role: user, content: hi }]\n    evaluators: [{ type: contains, value: "127.0.0.1" }]\n',
  });
  projects.push(project);
  return project;
}

describe('the OTLP receiver port', () => {
  it('listens on trace.port, and stops the run with a clear error when the port is taken', async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder!.listen(0, '127.0.0.1', resolve));
    const taken = (holder.address() as AddressInfo).port;
    const project = await projectWith(`{ source: otlp, port: ${taken} }`);
    const refused = await runAgentv(['eval', 'evals/one.yaml', '--out', 'out.jsonl'], project.dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `the OTLP receiver cannot listen on 127.0.0.1:${taken}: another program uses that port`,
    );
    expect(refused.stderr).toContain('trace.port');
    expect(refused.stderr).not.toMatch(/\n\s+at /);

    // Once the port is free, the agent is given it.
    await new Promise((resolve) => holder!.close(resolve));
    holder = undefined;
    const run = await runAgentv(['eval', 'evals/one.yaml', '--out', 'out.jsonl'], project.dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toContain('warning');
  });

  it('validate refuses a port that is not one', async () => {
    const project = await projectWith('{ source: otlp, port: 70000 }');
    const run = await runAgentv(['validate', 'evals/one.yaml'], project.dir);
    expect(run.code).not.toBe(0);
    expect(run.stdout + run.stderr).toMatch(/trace\.port.*65535/);
  });
});
