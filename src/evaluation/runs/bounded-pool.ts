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
