import { QueryFailedError } from 'typeorm';
import { classifyDatabaseError } from './database-problem';

const queryFailed = (fields: Record<string, unknown>) => new QueryFailedError('UPDATE x', [], Object.assign(new Error('db'), fields));

describe('classifyDatabaseError', () => {
  it.each([
    ['23505', 409],
    ['23502', 400],
    ['23503', 400],
    ['23514', 400],
    ['22003', 400],
    ['22P02', 400],
    ['22001', 400],
    ['57P01', 503],
    ['08006', 503],
    ['53300', 503],
    ['57014', 503],
    ['40001', 503],
  ])('maps SQLSTATE %s to %i', (code, status) => {
    expect(classifyDatabaseError(queryFailed({ code }))?.status).toBe(status);
  });

  it('names the column of a not-null violation', () => {
    const problem = classifyDatabaseError(queryFailed({ code: '23502', column: 'name' }));
    expect(problem).toMatchObject({ status: 400, field: 'name' });
    expect(problem?.detail).toContain('(name)');
  });

  it('gives a retry hint when the database is unreachable', () => {
    expect(classifyDatabaseError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toMatchObject({ status: 503, retryAfterSeconds: 5 });
    expect(classifyDatabaseError(new Error('timeout exceeded when trying to connect'))).toMatchObject({ status: 503 });
    expect(classifyDatabaseError(new Error('Connection terminated unexpectedly'))).toMatchObject({ status: 503 });
  });

  it('answers 503 for the shapes a stopped or frozen database throws (issue 20 item 1)', () => {
    expect(classifyDatabaseError(queryFailed({ message: 'Query read timeout' }))).toMatchObject({ status: 503, retryAfterSeconds: 5 });
    expect(classifyDatabaseError(new Error('Connection terminated due to connection timeout'))).toMatchObject({ status: 503 });
    expect(classifyDatabaseError(new Error('Client was closed and is not queryable'))).toMatchObject({ status: 503 });
    expect(classifyDatabaseError(new Error('the database system is shutting down'))).toMatchObject({ status: 503 });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(classifyDatabaseError(new AggregateError([refused, refused]))).toMatchObject({ status: 503 });
    expect(classifyDatabaseError(new AggregateError([new TypeError('x')]))).toBeUndefined();
  });

  it('leaves server-side bugs and other errors alone (they are 500s)', () => {
    expect(classifyDatabaseError(queryFailed({ code: '42703' }))).toBeUndefined();
    expect(classifyDatabaseError(new TypeError('x is undefined'))).toBeUndefined();
    expect(classifyDatabaseError(undefined)).toBeUndefined();
    expect(classifyDatabaseError('boom')).toBeUndefined();
  });
});
