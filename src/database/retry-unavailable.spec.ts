import { retryWhileDatabaseUnavailable } from './retry-unavailable';

const unavailable = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('retryWhileDatabaseUnavailable', () => {
  it('retries while the database is unreachable and returns the eventual result', async () => {
    let calls = 0;
    const result = await retryWhileDatabaseUnavailable(async () => {
      calls += 1;
      if (calls < 3) throw unavailable();
      return 'stored';
    }, { deadlineMs: 10_000 });
    expect([result, calls]).toEqual(['stored', 3]);
  });

  it('does not retry other errors', async () => {
    let calls = 0;
    await expect(retryWhileDatabaseUnavailable(async () => {
      calls += 1;
      throw Object.assign(new Error('duplicate'), { code: '23505' });
    }, { deadlineMs: 10_000 })).rejects.toThrow('duplicate');
    expect(calls).toBe(1);
  });

  it('stops when told to, and at the deadline', async () => {
    let calls = 0;
    await expect(retryWhileDatabaseUnavailable(async () => {
      calls += 1;
      throw unavailable();
    }, { deadlineMs: 10_000, shouldStop: () => calls >= 2 })).rejects.toThrow('ECONNREFUSED');
    expect(calls).toBe(2);
    const started = Date.now();
    await expect(retryWhileDatabaseUnavailable(async () => { throw unavailable(); }, { deadlineMs: 600 })).rejects.toThrow('ECONNREFUSED');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
