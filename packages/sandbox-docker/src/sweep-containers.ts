import type Docker from 'dockerode';

/**
 * Removes this host's AgentV containers whose process is gone: labelled
 * `agentv.host=<host>` with an `agentv.pid` no process has any more.
 * Resolves to how many were removed.
 */
export async function sweepContainers(docker: Docker, host: string): Promise<number> {
  const containers = await docker.listContainers({
    all: true,
    filters: { label: [`agentv.host=${host}`, 'agentv.pid'] },
  });
  let removed = 0;
  for (const info of containers) {
    const pid = Number(info.Labels['agentv.pid']);
    if (!Number.isInteger(pid) || pid <= 0 || isAlive(pid)) continue;
    await docker
      .getContainer(info.Id)
      .remove({ force: true, v: true })
      .then(
        () => removed++,
        // Another AgentV sweeping at the same moment removed it first.
        () => undefined,
      );
  }
  return removed;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
