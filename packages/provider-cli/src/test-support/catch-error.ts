/** Runs `action` and returns what it threw; fails the test when it throws nothing. */
export async function catchError(action: () => unknown): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error, but nothing was thrown');
}
