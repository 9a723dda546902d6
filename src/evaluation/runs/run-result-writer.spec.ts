import { RunResultWriter, StoredCaseResult } from './run-result-writer';

const result = (index: number): StoredCaseResult => ({
  case_id: `c${index}`, repeat_index: 0, position: index, status: 'passed', output: 'ok', latency_ms: 1, score: 1, error: null, transcript: [], rules_passed: 0, rules_total: 0, rules: [],
});

describe('RunResultWriter', () => {
  it('stores full batches at once and the rest on flush, one store at a time, in order', async () => {
    const stored: string[][] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const writer = new RunResultWriter(async (batch) => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      stored.push(batch.map((item) => item.case_id));
      inFlight--;
    }, 3, 60_000);
    await Promise.all([0, 1, 2, 3, 4, 5, 6].map((index) => writer.add(result(index))));
    await writer.flush();
    expect(stored).toEqual([['c0', 'c1', 'c2'], ['c3', 'c4', 'c5'], ['c6']]);
    expect(maxInFlight).toBe(1);
  });

  it('makes the case that fills a batch wait for its store (backpressure), the others not', async () => {
    let release!: () => void;
    const writer = new RunResultWriter(() => new Promise<void>((resolve) => (release = resolve)), 2, 60_000);
    await writer.add(result(0)); // buffered: resolves at once
    let filled = false;
    const filling = writer.add(result(1)).then(() => (filled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(filled).toBe(false);
    release();
    await filling;
    expect(filled).toBe(true);
  });

  it('stores a partial batch after flushMs without a flush call', async () => {
    const stored: number[] = [];
    const writer = new RunResultWriter(async (batch) => void stored.push(batch.length), 100, 10);
    await writer.add(result(0));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stored).toEqual([1]);
  });

  it('rejects every later add and flush with a failed store\'s error', async () => {
    const writer = new RunResultWriter(async () => {
      throw new Error('disk full');
    }, 1, 10);
    await expect(writer.add(result(0))).rejects.toThrow('disk full');
    await expect(writer.add(result(1))).rejects.toThrow('disk full');
    await expect(writer.flush()).rejects.toThrow('disk full');
  });
});
