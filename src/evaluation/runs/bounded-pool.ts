/**
 * Runs `work` over `items` with at most `concurrency` calls in flight, in item order. Before taking each item a
 * worker asks `shouldStop` (which may be async, e.g. a database read); once it answers true no new item is taken,
 * while calls already in flight finish. Each item is taken exactly once: the index is claimed after the
 * `shouldStop` await, so a worker that waited never takes an item another worker claimed meanwhile.
 * @param concurrency at least 1 worker runs (when there are items)
 * @returns how many items were taken
 * @throws the first error `work` or `shouldStop` throws (other workers stop taking items)
 */
export async function runBounded<T>(items: readonly T[], concurrency: number, shouldStop: () => boolean | Promise<boolean>, work: (item: T) => Promise<void>): Promise<number> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    try {
      while (!failed && next < items.length && !(await shouldStop())) {
        if (failed || next >= items.length) return; // claimed by others while this worker awaited shouldStop
        await work(items[next++]);
      }
    } catch (error) {
      failed = true;
      throw error;
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, concurrency), items.length) }, worker));
  return next;
}

/**
 * {@link runBounded} over items pulled one at a time from `next` (a paged reader: issue 14 item 3, so a run never
 * holds all its cases), with at most `concurrency` calls of `work` in flight. `next` resolves to `undefined` once
 * there are no more items; calls to `next` never overlap, so each item is handed out once. Before pulling an item
 * a worker asks `shouldStop`; once it answers true no new item is pulled, while calls in flight finish.
 * @returns how many items were taken
 * @throws the first error `next`, `work` or `shouldStop` throws (other workers stop taking items)
 */
export async function runBoundedFrom<T>(next: () => Promise<T | undefined>, concurrency: number, shouldStop: () => boolean | Promise<boolean>, work: (item: T) => Promise<void>): Promise<number> {
  let taken = 0;
  let failed = false;
  let exhausted = false;
  let pulling: Promise<unknown> = Promise.resolve();
  /** Serialises the pulls: each caller waits for the previous pull before its own. */
  const pull = (): Promise<T | undefined> => {
    const result = pulling.then(() => (exhausted || failed ? undefined : next()));
    pulling = result.catch(() => undefined);
    return result;
  };
  const worker = async () => {
    try {
      while (!failed && !exhausted && !(await shouldStop())) {
        const item = await pull();
        if (item === undefined) {
          exhausted = true;
          return;
        }
        if (failed) return;
        taken++;
        await work(item);
      }
    } catch (error) {
      failed = true;
      throw error;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return taken;
}
