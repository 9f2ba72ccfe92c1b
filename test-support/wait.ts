/** Poll until `check` returns a truthy value (tests waiting for an event the core emits asynchronously). */
export async function waitFor<T>(check: () => T | undefined | null | false, timeoutMs = 5_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error('waitFor: timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
