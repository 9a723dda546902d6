import type { ClientBase } from 'pg';
import { dropOnReadTimeout, guardedPgDriver, GuardedPool } from './guarded-pg';

/** A stand-in for a pg client: its query answers what `answer` says; its socket is a spy. */
function fakeClient(answer: () => Promise<unknown>) {
  const destroy = jest.fn();
  const client = { connection: { stream: { destroy } }, query: jest.fn((..._args: unknown[]) => answer()) };
  dropOnReadTimeout(client as unknown as ClientBase);
  return { client, destroy };
}

describe('guarded pg (issue 20 item 1: a frozen server)', () => {
  it('drops the socket of a client whose query hit its read timeout, and passes the error on', async () => {
    const { client, destroy } = fakeClient(() => Promise.reject(new Error('Query read timeout')));
    await expect(client.query('SELECT 1')).rejects.toThrow('Query read timeout');
    await Promise.resolve();
    expect(destroy).toHaveBeenCalledTimes(1);
  });

  it('keeps the socket on other errors and on answers', async () => {
    const failing = fakeClient(() => Promise.reject(Object.assign(new Error('duplicate key'), { code: '23505' })));
    await expect(failing.client.query('INSERT')).rejects.toThrow('duplicate key');
    const answering = fakeClient(() => Promise.resolve({ rows: [] }));
    await expect(answering.client.query('SELECT 1')).resolves.toEqual({ rows: [] });
    await Promise.resolve();
    expect(failing.destroy).not.toHaveBeenCalled();
    expect(answering.destroy).not.toHaveBeenCalled();
  });

  it('watches callback-style queries too', () => {
    const destroy = jest.fn();
    const client = { connection: { stream: { destroy } }, query: (_text: string, _values: unknown[], callback: (error: unknown) => void) => callback(new Error('Query read timeout')) };
    dropOnReadTimeout(client as unknown as ClientBase);
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
});
