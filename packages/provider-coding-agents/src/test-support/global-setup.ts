/** Installs the pinned agent CLIs once (see agent-cli.ts); filled in with the first adapter's tests. */
export default async function setup(): Promise<void> {}
