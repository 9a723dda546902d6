/**
 * Polls `check` every `intervalMs` until it returns a value other than undefined, and returns that value.
 * @throws Error naming `what` after `timeoutMs`
 */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, { intervalMs = 50, timeoutMs = 30_000 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A promise a test resolves when it chooses: peers await `promise` to hold a reply until `release()`. */
export function newGate(): { promise: Promise<void>; release: () => void } {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}
