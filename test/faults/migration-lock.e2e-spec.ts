import { Client } from 'pg';
import { ALL_MIGRATIONS } from '../../migrations';
import { MIGRATION_LOCK_KEY, migrateUnderLock } from '../../src/database/migration-lock';
import { advisoryLockRowsSql } from '../support/advisory-locks';

/**
 * Issue 20 item 6: migrations run under a PostgreSQL advisory lock, so instances started together never race.
 * Four migrators start at once on a fresh database: every migration is applied exactly once, none fails. And a
 * migrator waits while another session holds the lock.
 */
describe('migrations under an advisory lock (issue 20 item 6)', () => {
  let database: string;
  let url: string;
  let admin: Client;

  beforeAll(async () => {
    admin = new Client({ connectionString: process.env.ATRIUM_TEST_DATABASE_URL });
    await admin.connect();
    database = `atrium_miglock_${process.pid}_${Date.now().toString(36)}`;
    await admin.query(`CREATE DATABASE ${database}`);
    const parsed = new URL(process.env.ATRIUM_TEST_DATABASE_URL!);
    parsed.pathname = `/${database}`;
    url = parsed.toString();
  });

  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  it('waits while another session holds the lock, then four concurrent starts apply each migration once', async () => {
    const holder = new Client({ connectionString: url });
    await holder.connect();
    await holder.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
    let settled = false;
    const migrators = [0, 1, 2, 3].map(() => migrateUnderLock(url).finally(() => (settled = true)));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // Held elsewhere: nobody migrated, and the waiters show up in pg_locks.
    expect(settled).toBe(false);
    const waiting = await holder.query(advisoryLockRowsSql(MIGRATION_LOCK_KEY, 'waiting'));
    expect(waiting.rows[0].n).toBe(4);
    await holder.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`);
    await holder.end();

    const results = await Promise.allSettled(migrators);
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    const applied = results.flatMap((result) => (result.status === 'fulfilled' ? result.value.map((migration) => migration.name) : []));
    expect(applied.length).toBe(ALL_MIGRATIONS.length);
    expect(new Set(applied).size).toBe(ALL_MIGRATIONS.length);
    // One migrator did the work; the others found nothing left.
    expect(results.filter((result) => result.status === 'fulfilled' && result.value.length === 0).length).toBe(3);

    const check = new Client({ connectionString: url });
    await check.connect();
    const rows = await check.query('SELECT name, count(*)::int AS n FROM migrations GROUP BY name');
    const locks = await check.query(advisoryLockRowsSql(MIGRATION_LOCK_KEY));
    await check.end();
    expect(rows.rows.length).toBe(ALL_MIGRATIONS.length);
    expect(rows.rows.every((row: { n: number }) => row.n === 1)).toBe(true);
    // The lock went with its session.
    expect(locks.rows[0].n).toBe(0);
  }, 180_000);
});
