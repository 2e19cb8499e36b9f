/**
 * Waiting in tests for what a test waits for (a server's answer, a notice, a file), never for a
 * fixed time: the suite also runs on a busy machine, where things take longer but still happen.
 */

/** Polls `probe` until it gives a value (anything but undefined); fails after `timeoutMs`, naming `what`. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 15_000,
  what = "the condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Polls a condition read without waiting until it holds (waitFor for a boolean). */
export async function until(condition: () => boolean, timeoutMs = 20_000, what = "the condition"): Promise<void> {
  await waitFor(() => (condition() ? true : undefined), timeoutMs, what);
}
