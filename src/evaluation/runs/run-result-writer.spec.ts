import { RunResultWriter, StoredCaseResult } from './run-result-writer';

const result = (index: number): StoredCaseResult => ({
  case_id: `c${index}`, repeat_index: 0, position: index, status: 'passed', output: 'ok', latency_ms: 1, score: 1, error: null, transcript: [], rules_passed: 0, rules_total: 0, rules: [],
});

describe('RunResultWriter', () => {
  it('stores at once when idle, and what finishes meanwhile together in the next statement, in order', async () => {
    const stored: string[][] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const writer = new RunResultWriter(async (batch) => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      stored.push(batch.map((item) => item.case_id));
      inFlight--;
    }, 3);
    await Promise.all([0, 1, 2, 3, 4, 5, 6].map((index) => writer.add(result(index))));
    await writer.flush();
    expect(stored).toEqual([['c0'], ['c1', 'c2', 'c3'], ['c4', 'c5', 'c6']]);
    expect(maxInFlight).toBe(1);
  });

  it('stores a lone result without waiting for others', async () => {
    const stored: number[] = [];
    const writer = new RunResultWriter(async (batch) => void stored.push(batch.length), 100);
    await writer.add(result(0));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stored).toEqual([1]);
  });

  it('makes a case wait for the store in flight once a whole batch is waiting (backpressure)', async () => {
    const releases: (() => void)[] = [];
    const writer = new RunResultWriter(() => new Promise<void>((resolve) => releases.push(resolve)), 2);
    await writer.add(result(0)); // stored at once (the store is in flight)
    await writer.add(result(1));
    await writer.add(result(2)); // two waiting: a batch, still no wait
    let added = false;
    const adding = writer.add(result(3)).then(() => (added = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(added).toBe(false);
    releases[0](); // the first statement ends: [1, 2] go, and the case waiting may add
    await adding;
    expect(added).toBe(true);
    expect(releases).toHaveLength(2);
    for (let index = 0; index < 5; index++) {
      releases[index]?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await writer.flush();
  });

  it('rejects every later add and flush with a failed store\'s error', async () => {
    const writer = new RunResultWriter(async () => {
      throw new Error('disk full');
    }, 1);
    await writer.add(result(0)).catch(() => undefined);
    await expect(writer.flush()).rejects.toThrow('disk full');
    await expect(writer.add(result(1))).rejects.toThrow('disk full');
  });
});
