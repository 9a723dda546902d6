import { installDatabaseOutageGuard, rejectionKind } from './database-outage-guard';

/** process.emit without the per-event overloads (tests raise the events the handlers take). */
const emit = (event: string, ...args: unknown[]) => (process.emit as unknown as (name: string, ...values: unknown[]) => boolean).call(process, event, ...args);

describe('database outage guard (issue 20 item 1)', () => {
  it('tells database outages from bugs', () => {
    expect(rejectionKind(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe('outage');
    expect(rejectionKind(new Error('Connection terminated unexpectedly'))).toBe('outage');
    expect(rejectionKind(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe('outage');
    expect(rejectionKind(new Error('Query read timeout'))).toBe('outage');
    expect(rejectionKind(new TypeError('cannot read properties of undefined'))).toBe('bug');
    expect(rejectionKind(Object.assign(new Error('column "x" does not exist'), { code: '42703' }))).toBe('bug');
    expect(rejectionKind(undefined)).toBe('bug');
  });

  it('keeps the process up on an outage and exits 1 on a bug', () => {
    const logger = { warn: jest.fn(), fatal: jest.fn() };
    const exit = jest.fn();
    const before = process.listenerCount('unhandledRejection');
    const beforeExceptions = process.listenerCount('uncaughtException');
    const remove = installDatabaseOutageGuard(logger, exit);
    try {
      expect(process.listenerCount('unhandledRejection')).toBe(before + 1);
      process.emit('unhandledRejection', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), Promise.resolve());
      expect(exit).not.toHaveBeenCalled();
      expect(logger.warn).toHaveBeenCalledTimes(1);
      process.emit('unhandledRejection', new TypeError('boom'), Promise.resolve());
      expect(exit).toHaveBeenCalledWith(1);
      expect(logger.fatal).toHaveBeenCalledTimes(1);
      // A pg client's 'error' event with no listener is thrown: survived when it is an outage.
      emit('uncaughtException', new Error('Connection terminated unexpectedly'), 'uncaughtException');
      expect(exit).toHaveBeenCalledTimes(1);
      emit('uncaughtException', new RangeError('bad'), 'uncaughtException');
      expect(exit).toHaveBeenCalledTimes(2);
    } finally {
      remove();
    }
    expect(process.listenerCount('unhandledRejection')).toBe(before);
    expect(process.listenerCount('uncaughtException')).toBe(beforeExceptions);
  });
});
