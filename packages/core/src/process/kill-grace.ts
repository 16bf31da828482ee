/** Time between SIGTERM and SIGKILL when AgentV stops a process it started, unless set otherwise. */
export const DEFAULT_KILL_GRACE_MS = 2000;
