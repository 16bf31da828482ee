import type { PlannedCase, RunPlan } from '@agentv/core';
import { displayPath } from '@agentv/core/internal';
import { terminalText } from '@agentv/results';

type Workspace = NonNullable<PlannedCase['evalCase']['workspace']>;

/**
 * `--dry-run` sets up no workspace and runs no hook: the cases that have a
 * workspace are taken out of the plan (`listed`), to be listed with what a real
 * run would do for them; the others (`plan`) run with the mock provider.
 */
export function splitDryRun(plan: RunPlan): { plan: RunPlan; listed: PlannedCase[] } {
  const listed = plan.cases.filter((c) => c.evalCase.workspace !== undefined);
  if (listed.length === 0) return { plan, listed };
  return { plan: { ...plan, cases: plan.cases.filter((c) => !listed.includes(c)) }, listed };
}

/**
 * Lists the cases `splitDryRun` left out, then, per workspace block, what a
 * real run would set up and run. Values come from files: each line escaped.
 */
export function writeDryRunWorkspaces(
  listed: readonly PlannedCase[],
  cwd: string,
  stream: { write(text: string): unknown },
): void {
  if (listed.length === 0) return;
  const line = (text: string) => stream.write(`${terminalText(text)}\n`);
  line(
    `dry run: ${listed.length} ${listed.length === 1 ? 'case has' : 'cases have'} a workspace and ${listed.length === 1 ? 'is' : 'are'} not run (a dry run sets up no workspace and runs no hook):`,
  );
  const blocks = new Map<string, { workspace: Workspace; cases: PlannedCase[] }>();
  for (const c of listed) {
    const workspace = c.evalCase.workspace as Workspace;
    line(`  ${displayPath(cwd, c.evalCase.filePath)}  ${c.evalCase.id}  ${c.target.name}`);
    const block = blocks.get(workspace.key);
    if (block === undefined) blocks.set(workspace.key, { workspace, cases: [c] });
    else block.cases.push(c);
  }
  line('A real run would:');
  for (const { workspace, cases } of blocks.values()) {
    const ids = cases.map((c) => c.evalCase.id);
    const shown = ids.length > 3 ? `${ids.slice(0, 3).join(', ')}, …` : ids.join(', ');
    line(
      `  for ${cases.length} ${cases.length === 1 ? 'case' : 'cases'} (${shown}): a ${workspace.isolation === 'shared' ? 'shared workspace' : `${workspace.mode} workspace per case`}`,
    );
    if (workspace.template !== undefined) {
      line(`    copy the template ${displayPath(cwd, workspace.template)}`);
    }
    for (const repo of workspace.repos ?? []) {
      const sparse = repo.sparse === undefined ? '' : ` (sparse: ${repo.sparse.join(', ')})`;
      line(
        `    check out ${repo.repo} at ${repo.commit ?? 'HEAD'}${repo.ancestor === undefined ? '' : `~${repo.ancestor}`} into ${repo.path}${sparse}`,
      );
    }
    if (workspace.docker !== undefined) line('    run the cases in a container (docker:)');
    const hooks: [string, Workspace['hooks'][keyof Workspace['hooks']]][] = [
      ['before_all', workspace.hooks.beforeAll],
      ['before_each', workspace.hooks.beforeEach],
      ['after_each', workspace.hooks.afterEach],
      ['after_all', workspace.hooks.afterAll],
    ];
    for (const [name, hook] of hooks) {
      if (hook === undefined) continue;
      const command =
        typeof hook.command === 'string' ? hook.command : JSON.stringify(hook.command);
      line(`    run ${name}: ${command}`);
    }
  }
}
