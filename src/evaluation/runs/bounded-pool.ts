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

/** What a pull gives: the item at once when it is at hand, or a promise of it. */
export type Pulled<T> = T | undefined | Promise<T | undefined>;

/**
 * {@link runBounded} over items pulled one at a time from `next` (a paged reader: issue 14 item 3, so a run never
 * holds all its cases), with at most `concurrency` calls of `work` in flight. `next` gives `undefined` once there are
 * no more items; it may answer at once (an item at hand) or with a promise (a read), and a call never starts while a
 * promise of the previous one is pending, so each item is handed out once. Before pulling an item a worker asks
 * `shouldStop` (at once, or with a promise); once it answers true no new item is pulled, while calls in flight
 * finish. Answers given at once cost no promise per item (a run pulls thousands).
 * @returns how many items were taken
 * @throws the first error `next`, `work` or `shouldStop` throws (other workers stop taking items)
 */
export async function runBoundedFrom<T>(next: () => Pulled<T>, concurrency: number, shouldStop: () => boolean | Promise<boolean>, work: (item: T) => Promise<void>): Promise<number> {
  let taken = 0;
  let failed = false;
  let exhausted = false;
  /** The pending read, while one is pending (settles, never rejects). */
  let pulling: Promise<unknown> | undefined;
  const track = (result: Promise<unknown>) => {
    const settled: Promise<unknown> = result.then(
      () => undefined,
      () => undefined,
    );
    pulling = settled;
    void settled.then(() => {
      if (pulling === settled) pulling = undefined;
    });
  };
  /** Serialises the pulls: a pull waits for a pending read before its own. */
  const pull = (): Pulled<T> => {
    if (exhausted || failed) return undefined;
    if (pulling) {
      const result = pulling.then(() => (exhausted || failed ? undefined : next()));
      track(result);
      return result;
    }
    const result = next();
    if (result instanceof Promise) track(result);
    return result;
  };
  const worker = async () => {
    try {
      while (!failed && !exhausted) {
        const stop = shouldStop();
        if (stop === true || (stop !== false && (await stop))) return;
        const pulled = pull();
        const item = pulled instanceof Promise ? await pulled : pulled;
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
