import type * as pg from 'pg';
import { QueryFailedError, type DataSource } from 'typeorm';

/**
 * Whether {@link queryOnPool} may stand in for `dataSource.query` on this data source: PostgreSQL, connected, and no
 * subscriber listening for TypeORM's query events (which only TypeORM's query runner sends).
 */
export function canQueryOnPool(dataSource: DataSource): boolean {
  return dataSource.options.type === 'postgres' && dataSource.subscribers.length === 0 && Boolean(poolOf(dataSource));
}

/**
 * Runs one statement outside a transaction as `dataSource.query(sql, values)` does, on a client of the data source's
 * own pool (so its guards hold: query timeouts, dropped sockets, named prepared statements, guarded-pg.ts), without
 * the query runner TypeORM builds for every statement (issue 14 item 1: a list page's runner, its event broadcasts
 * and result wrapping cost about 7 % of the request's CPU). What TypeORM's runner does that matters is kept: a
 * statement slower than `maxQueryExecutionTime` is logged as slow, a failure is logged and thrown as TypeORM's
 * `QueryFailedError` (the problem mapping reads its `driverError`), and a client whose connection failed while it
 * was out is released as broken, so the pool drops it (a session the server ended is dropped by the pool's own guard,
 * guarded-pg.ts `dropDeadSessions`, on either path).
 * Only for data sources {@link canQueryOnPool} accepts.
 * @returns the statement's rows, as pg parsed them
 * @throws QueryFailedError the statement failed (its pg error as `driverError`); the pool's own error when no client can be had
 */
export async function queryOnPool<R = Record<string, unknown>>(dataSource: DataSource, sql: string, values: unknown[]): Promise<R[]> {
  const client = await poolOf(dataSource)!.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => (broken = error);
  client.on('error', onError);
  const started = Date.now();
  try {
    const result = await client.query(sql, values);
    const elapsedMs = Date.now() - started;
    const slowMs = (dataSource.options as { maxQueryExecutionTime?: number }).maxQueryExecutionTime;
    if (slowMs && elapsedMs > slowMs) dataSource.logger.logQuerySlow(elapsedMs, sql, values);
    return result.rows as R[];
  } catch (error) {
    dataSource.logger.logQueryError(error as Error, sql, values);
    throw new QueryFailedError(sql, values, error as Error);
  } finally {
    client.removeListener('error', onError);
    client.release(broken);
  }
}

/** The pg Pool of a connected PostgreSQL data source (TypeORM's `driver.master`), else undefined. */
function poolOf(dataSource: DataSource): pg.Pool | undefined {
  return (dataSource.driver as unknown as { master?: pg.Pool }).master;
}
