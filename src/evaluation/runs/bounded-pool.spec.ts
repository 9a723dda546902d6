import { runBounded, runBoundedFrom } from './bounded-pool';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('runBounded', () => {
  it('runs every item exactly once with at most `concurrency` in flight', async () => {
    const seen: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const taken = await runBounded(Array.from({ length: 50 }, (_, index) => index), 7, () => false, async (item) => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await tick();
      seen.push(item);
      inFlight--;
    });
    expect(taken).toBe(50);
    expect([...seen].sort((a, b) => a - b)).toStrictEqual(Array.from({ length: 50 }, (_, index) => index));
    expect(maxInFlight).toBe(7);
  });

  it('never hands out an item twice or past the end when shouldStop is slow (regression: undefined item)', async () => {
    const seen: unknown[] = [];
    // The first worker is parked in a slow shouldStop while the second claims every item.
    let call = 0;
    const shouldStop = async () => {
      if (call++ === 0) for (let index = 0; index < 10; index++) await tick();
      return false;
    };
    await runBounded([1, 2, 3, 4, 5], 2, shouldStop, async (item) => {
      seen.push(item);
      await tick();
    });
    expect(seen).toHaveLength(5); // toEqual would ignore a trailing undefined
    expect(seen.sort()).toStrictEqual([1, 2, 3, 4, 5]);
  });

  it('takes no new item once shouldStop answers true, letting calls in flight finish', async () => {
    const finished: number[] = [];
    let stop = false;
    const taken = await runBounded(Array.from({ length: 20 }, (_, index) => index), 2, () => stop, async (item) => {
      if (item === 3) stop = true;
      await tick();
      finished.push(item);
    });
    expect(taken).toBeLessThanOrEqual(5);
    expect(finished).toHaveLength(taken);
    expect(finished).toContain(3);
  });

  it('runs nothing for no items and propagates the first error', async () => {
    await expect(runBounded([], 3, () => false, async () => undefined)).resolves.toBe(0);
    await expect(runBounded([1, 2, 3], 2, () => false, async (item) => { if (item === 2) throw new Error('boom'); })).rejects.toThrow('boom');
  });
});

describe('runBoundedFrom', () => {
  const source = (count: number) => {
    let next = 0;
    let pulling = false;
    return async () => {
      if (pulling) throw new Error('pulls overlapped');
      pulling = true;
      await tick();
      pulling = false;
      return next < count ? next++ : undefined;
    };
  };

  it('pulls every item once, never two pulls at a time, with at most `concurrency` in flight', async () => {
    const seen: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const taken = await runBoundedFrom(source(40), 6, () => false, async (item) => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.push(item);
      inFlight--;
    });
    expect(taken).toBe(40);
    expect([...seen].sort((a, b) => a - b)).toStrictEqual(Array.from({ length: 40 }, (_, index) => index));
    expect(maxInFlight).toBe(6);
  });

  it('takes items given at once and items read by a promise alike: each once, no pull while a read is pending', async () => {
    // Pages of 4: the first item of a page is read (a promise), the others are at hand.
    let next = 0;
    let reading = false;
    const paged = () => {
      if (reading) throw new Error('pulled while a read was pending');
      if (next >= 30) return undefined;
      if (next % 4 !== 0) return next++;
      reading = true;
      return tick().then(() => {
        reading = false;
        return next++;
      });
    };
    const seen: number[] = [];
    let stopChecks = 0;
    const taken = await runBoundedFrom(paged, 5, () => (++stopChecks % 3 === 0 ? Promise.resolve(false) : false), async (item) => {
      await tick();
      seen.push(item);
    });
    expect(taken).toBe(30);
    expect([...seen].sort((a, b) => a - b)).toStrictEqual(Array.from({ length: 30 }, (_, index) => index));
  });

  it('stops pulling once shouldStop answers true, and passes on a failed pull', async () => {
    let calls = 0;
    const taken = await runBoundedFrom(source(100), 3, () => ++calls > 5, async () => { await tick(); });
    expect(taken).toBeLessThanOrEqual(5);
    await expect(runBoundedFrom(async () => { throw new Error('database away'); }, 3, () => false, async () => undefined)).rejects.toThrow('database away');
  });
});
