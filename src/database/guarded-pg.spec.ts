import type { ClientBase } from 'pg';
import { dropDeadSessions, guardedPgDriver, GuardedPool, PREPARED_STATEMENTS_MAX, prepareOnFirstUse, preparedNameOf, runPreparedByName } from './guarded-pg';
import { ATRIUM_PG_TYPES } from './timestamptz-parser';

/** A stand-in for a pg client: its query answers what `answer` says; its socket and `end` are spies. */
function fakeClient(answer: () => Promise<unknown>) {
  const destroy = jest.fn();
  const end = jest.fn(() => Promise.resolve());
  const client = { connection: { stream: { destroy } }, end, query: jest.fn((..._args: unknown[]) => answer()) };
  dropDeadSessions(client as unknown as ClientBase);
  return { client, destroy, end };
}

describe('guarded pg (issue 20 item 1: a frozen server)', () => {
  it('drops the socket of a client whose query hit its read timeout, and passes the error on', async () => {
    const { client, destroy } = fakeClient(() => Promise.reject(new Error('Query read timeout')));
    await expect(client.query('SELECT 1')).rejects.toThrow('Query read timeout');
    await Promise.resolve();
    expect(destroy).toHaveBeenCalledTimes(1);
  });

  it('ends a client whose query the server refused with a FATAL error (its session is over), before the caller sees the error', async () => {
    const { client, destroy, end } = fakeClient(() =>
      Promise.reject(Object.assign(new Error('terminating connection due to administrator command'), { severity: 'FATAL', code: '57P01' })),
    );
    await expect(client.query('SELECT pg_sleep(5)')).rejects.toThrow('administrator command');
    // Ended by the time the caller's own rejection handler runs: a pool release right then already sees it ending.
    expect(end).toHaveBeenCalledTimes(1);
    expect(destroy).not.toHaveBeenCalled();
  });

  it('keeps the socket and the session on other errors and on answers', async () => {
    const failing = fakeClient(() => Promise.reject(Object.assign(new Error('duplicate key'), { code: '23505', severity: 'ERROR' })));
    await expect(failing.client.query('INSERT')).rejects.toThrow('duplicate key');
    const answering = fakeClient(() => Promise.resolve({ rows: [] }));
    await expect(answering.client.query('SELECT 1')).resolves.toEqual({ rows: [] });
    await Promise.resolve();
    expect(failing.destroy).not.toHaveBeenCalled();
    expect(answering.destroy).not.toHaveBeenCalled();
    expect(failing.end).not.toHaveBeenCalled();
    expect(answering.end).not.toHaveBeenCalled();
  });

  it('watches callback-style queries too', () => {
    const destroy = jest.fn();
    const client = { connection: { stream: { destroy } }, end: jest.fn(), query: (_text: string, _values: unknown[], callback: (error: unknown) => void) => callback(new Error('Query read timeout')) };
    dropDeadSessions(client as unknown as ClientBase);
    const callback = jest.fn();
    client.query('SELECT 1', [], callback);
    expect(callback).toHaveBeenCalledWith(expect.objectContaining({ message: 'Query read timeout' }));
    expect(destroy).toHaveBeenCalledTimes(1);
  });

  it('gives TypeORM pg with the guarded pool and pg\'s own everything else', () => {
    const driver = guardedPgDriver();
    expect(driver.Pool).toBe(GuardedPool);
    expect(typeof driver.Client).toBe('function');
    expect(driver.types).toBeDefined();
  });

  it('parses timestamps with the fast timestamptz parser unless the caller brings its own types', async () => {
    const defaulted = new GuardedPool({ max: 1 });
    const own = { getTypeParser: () => (text: string) => text };
    const explicit = new GuardedPool({ max: 1, types: own as never });
    expect((defaulted as unknown as { options: { types: unknown } }).options.types).toBe(ATRIUM_PG_TYPES);
    expect((explicit as unknown as { options: { types: unknown } }).options.types).toBe(own);
    await Promise.all([defaulted.end(), explicit.end()]);
  });
});

describe('named prepared statements (issue 14 acceptance 1: a hot list planned once per connection)', () => {
  /** A stand-in client recording what reaches pg's query, with {@link runPreparedByName} on top. */
  function preparingClient() {
    const seen: unknown[][] = [];
    const client = { query: jest.fn((...args: unknown[]) => (seen.push(args), Promise.resolve({ rows: [] }))) };
    runPreparedByName(client as unknown as ClientBase);
    return { client, seen };
  }

  it('runs a registered text as a statement named by its text, and every other text as it came', async () => {
    const text = `SELECT $1::int AS registered /* ${Math.random()} */`;
    prepareOnFirstUse(text);
    const name = preparedNameOf(text)!;
    expect(name).toMatch(/^atrium_[A-Za-z0-9_-]{32}$/);
    const { client, seen } = preparingClient();
    await client.query(text, [1]);
    await client.query('SELECT 2', [2]);
    await client.query(text); // no values array: not the shape TypeORM sends, passed on as it came
    expect(seen).toEqual([[{ name, text, values: [1] }], ['SELECT 2', [2]], [text]]);
  });

  it('keeps at most PREPARED_STATEMENTS_MAX texts named (a flood of shapes evicts the oldest, which then run unnamed)', async () => {
    const flood = Array.from({ length: PREPARED_STATEMENTS_MAX + 50 }, (_, index) => `SELECT ${index} AS flooded`);
    flood.forEach(prepareOnFirstUse);
    expect(flood.filter((text) => preparedNameOf(text) !== undefined)).toHaveLength(PREPARED_STATEMENTS_MAX);
    expect(preparedNameOf(flood[0])).toBeUndefined();
    expect(preparedNameOf(flood[flood.length - 1])).toBeDefined();
    const { client, seen } = preparingClient();
    await client.query(flood[0], []);
    expect(seen).toEqual([[flood[0], []]]);
  });

  it('names a text after its content alone, so two texts never share a name', () => {
    prepareOnFirstUse('SELECT 1 AS a');
    prepareOnFirstUse('SELECT 1 AS b');
    expect(preparedNameOf('SELECT 1 AS a')).not.toBe(preparedNameOf('SELECT 1 AS b'));
    prepareOnFirstUse('SELECT 1 AS a');
    expect(preparedNameOf('SELECT 1 AS a')).toBe(preparedNameOf('SELECT 1 AS a'));
  });

  it('runs a statement that went stale (its table changed) again unnamed, then unnamed on that connection; never in a failed transaction', async () => {
    const text = `SELECT * FROM migrated /* ${Math.random()} */`;
    prepareOnFirstUse(text);
    const name = preparedNameOf(text)!;
    const staleError = () => Object.assign(new Error('cached plan must not change result type'), { code: '0A000' });
    let status = 'I';
    const seen: unknown[][] = [];
    const client = {
      getTransactionStatus: () => status,
      query: jest.fn((...args: unknown[]) => (seen.push(args), typeof args[0] === 'object' ? Promise.reject(staleError()) : Promise.resolve({ rows: [1] }))),
    };
    runPreparedByName(client as unknown as ClientBase);
    await expect(client.query(text, [])).resolves.toEqual({ rows: [1] });
    await expect(client.query(text, [])).resolves.toEqual({ rows: [1] });
    expect(seen).toEqual([[{ name, text, values: [] }], [text, []], [text, []]]);
    const sent = jest.fn((..._args: unknown[]) => Promise.reject(staleError()));
    const inTransaction = { getTransactionStatus: () => status, query: sent };
    runPreparedByName(inTransaction as unknown as ClientBase);
    status = 'E';
    await expect(inTransaction.query(text, [])).rejects.toThrow('cached plan must not change result type');
    expect(sent).toHaveBeenCalledTimes(1);
  });
});
