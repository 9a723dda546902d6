import { DataSource, QueryFailedError, type Logger as TypeOrmLogger } from 'typeorm';
import { guardedPgDriver } from '../../src/database/guarded-pg';
import { canQueryOnPool, queryOnPool } from '../../src/database/pooled-query';
import { createSuiteDatabase, dropDatabase } from '../support/test-database';

/**
 * `queryOnPool` (issue 14 item 1: a list page's statement without TypeORM's per-statement query runner) on a real
 * PostgreSQL: the same rows as `dataSource.query`, its failures as TypeORM's QueryFailedError with pg's error as
 * `driverError` (what the problem mapping reads), slow statements and failures logged as TypeORM's runner logs them,
 * the client back in the pool after each statement, and a client whose session the server ended dropped by the pool
 * on this path and on TypeORM's own.
 */
describe('queryOnPool', () => {
  let database: { name: string; url: string; serverUrl: string };
  let dataSource: DataSource;
  const logged: string[] = [];
  const logger: TypeOrmLogger = {
    logQuery: () => undefined,
    logQueryError: (error, query) => logged.push(`error ${typeof error === 'string' ? error : error.message} | ${query}`),
    logQuerySlow: (time, query) => logged.push(`slow ${time} | ${query}`),
    logSchemaBuild: () => undefined,
    logMigration: () => undefined,
    log: () => undefined,
  };
  const pool = () => (dataSource.driver as unknown as { master: { totalCount: number; idleCount: number; waitingCount: number } }).master;

  beforeAll(async () => {
    database = await createSuiteDatabase('atrium_pooled_query');
    dataSource = new DataSource({ type: 'postgres', url: database.url, driver: guardedPgDriver(), logger, maxQueryExecutionTime: 200, extra: { max: 2 } });
    await dataSource.initialize();
    await dataSource.query('CREATE TABLE pooled_probe (id int PRIMARY KEY, label text, at timestamptz)');
    await dataSource.query("INSERT INTO pooled_probe SELECT i, 'row ' || i, '2026-11-27 01:02:03.456789+00' FROM generate_series(1, 30) AS i");
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await dropDatabase(database?.serverUrl, database?.name);
  });

  it('answers the rows dataSource.query answers, and gives its client back', async () => {
    expect(canQueryOnPool(dataSource)).toBe(true);
    const sql = 'SELECT id, label, at FROM pooled_probe WHERE id > $1 ORDER BY id LIMIT $2';
    const rows = await queryOnPool(dataSource, sql, [20, 5]);
    expect(rows).toEqual(await dataSource.query(sql, [20, 5]));
    expect(rows.map((row) => row.id)).toEqual([21, 22, 23, 24, 25]);
    // Many more statements than the pool has clients, at once: each gives its client back.
    const all = await Promise.all(Array.from({ length: 20 }, (_, at) => queryOnPool<{ id: number }>(dataSource, 'SELECT id FROM pooled_probe WHERE id = $1', [at + 1])));
    expect(all.map(([row]) => row.id)).toEqual(Array.from({ length: 20 }, (_, at) => at + 1));
    expect(pool().waitingCount).toBe(0);
    expect(pool().idleCount).toBe(pool().totalCount);
    expect(logged).toEqual([]);
  });

  it('throws a failure as QueryFailedError with pg\'s error and logs it, logs a slow statement, and keeps serving (attack: a failing statement)', async () => {
    const error = await queryOnPool(dataSource, 'SELECT no_such_column FROM pooled_probe WHERE id = $1', [1]).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(QueryFailedError);
    expect((error as QueryFailedError & { driverError: { code: string } }).driverError.code).toBe('42703');
    expect(logged.pop()).toMatch(/^error column "no_such_column" does not exist \| SELECT no_such_column/);
    // Slower than maxQueryExecutionTime (200 ms): answered, and logged as slow.
    expect(await queryOnPool(dataSource, 'SELECT 1 AS one FROM pg_sleep(0.3)', [])).toEqual([{ one: 1 }]);
    expect(logged.pop()).toMatch(/^slow \d{3,} \| SELECT 1 AS one FROM pg_sleep\(0\.3\)/);
    expect((await queryOnPool(dataSource, 'SELECT count(*)::int AS total FROM pooled_probe', []))[0]).toEqual({ total: 30 });
  });

  // The pool's own guard (guarded-pg.ts, dropDeadSessions) ends such a client, so both paths a statement takes agree.
  it.each([
    ['queryOnPool', (sql: string, values: unknown[] = []) => queryOnPool(dataSource, sql, values)],
    ['TypeORM\'s query runner (dataSource.query)', (sql: string, values: unknown[] = []) => dataSource.query(sql, values) as Promise<Array<Record<string, unknown>>>],
  ])('drops a client whose session the server ended mid-statement, so the next statement gets a fresh one, through %s (attack: pg_terminate_backend)', async (path, run) => {
    const marker = `SELECT pg_sleep(5) /* ${path} */`;
    const killed = run(marker).catch((thrown: unknown) => thrown);
    let victim: number | undefined;
    for (let attempt = 0; attempt < 100 && victim === undefined; attempt++) {
      const [row] = (await dataSource.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = $1 AND state = 'active'", [marker])) as Array<{ pid: number }>;
      victim = row?.pid;
      if (victim === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(victim).toBeDefined();
    await dataSource.query('SELECT pg_terminate_backend($1)', [victim]);
    const error = await killed;
    expect(error).toBeInstanceOf(QueryFailedError);
    // The ended client left the pool; the next statements get working ones.
    for (let round = 0; round < 4; round++) expect((await run('SELECT 1 AS one'))[0]).toEqual({ one: 1 });
    const sessions = (await dataSource.query('SELECT count(*)::int AS total FROM pg_stat_activity WHERE datname = current_database() AND pid = $1', [victim])) as Array<{ total: number }>;
    expect(sessions[0].total).toBe(0);
  });
});
