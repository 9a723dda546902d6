import { settlingSql } from './settling-sql';

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('settlingSql (issue 20 item 1: pg-boss settles without awaiting)', () => {
  const isSettle = (text: string) => text.startsWith('SETTLE');

  it('retries a settle statement while the database is unreachable, then returns its answer', async () => {
    let calls = 0;
    const execute = jest.fn(async () => {
      calls += 1;
      if (calls < 3) throw refused();
      return { rows: [{ id: 'j' }] };
    });
    const warn = jest.fn();
    const sql = settlingSql(execute, { isSettle, retryMs: 1000, delayMs: 5, closed: () => false, warn });
    await expect(sql('SETTLE complete', [1])).resolves.toEqual({ rows: [{ id: 'j' }] });
    expect(execute).toHaveBeenCalledTimes(3);
    expect(warn).not.toHaveBeenCalled();
  });

  it('never rejects a settle statement: gives up with no answer after retryMs, and at once on a non-connection error', async () => {
    const warn = jest.fn();
    const down = settlingSql(async () => Promise.reject(refused()), { isSettle, retryMs: 30, delayMs: 5, closed: () => false, warn });
    await expect(down('SETTLE fail')).resolves.toBeUndefined();
    const broken = jest.fn(async () => Promise.reject(Object.assign(new Error('syntax'), { code: '42601' })));
    await expect(settlingSql(broken, { isSettle, retryMs: 10_000, delayMs: 5, closed: () => false, warn })('SETTLE fail')).resolves.toBeUndefined();
    expect(broken).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls[0][0]).toContain('ECONNREFUSED');
  });

  it('stops retrying once the pool closes, and sends nothing after', async () => {
    let closed = false;
    const execute = jest.fn(async () => {
      closed = true;
      throw refused();
    });
    const sql = settlingSql(execute, { isSettle, retryMs: 10_000, delayMs: 5, closed: () => closed, warn: () => undefined });
    await expect(sql('SETTLE fail')).resolves.toBeUndefined();
    await expect(sql('SELECT fetch')).resolves.toBeUndefined();
    expect(execute).toHaveBeenCalledTimes(1);
  });

  it('lets other statements reject as before (pg-boss awaits them and emits error)', async () => {
    const sql = settlingSql(async () => Promise.reject(refused()), { isSettle, retryMs: 1000, delayMs: 5, closed: () => false, warn: () => undefined });
    await expect(sql('SELECT fetch')).rejects.toThrow('ECONNREFUSED');
  });
});
