import { Client } from 'pg';
import { type DatabaseSettings, pgClientOptions } from './database.config';

/**
 * Runs `work` while this process holds a session-level PostgreSQL advisory lock, taken on a dedicated connection, so
 * that instances started together do one start-up step one after another (issue 20 item 6). The lock goes with the
 * session: a process killed while holding it releases it.
 * @param url postgres:// URL of the app's database
 * @param key the lock's bigint key (decimal text), fixed for each step and shared by every Atrium version
 * @param settings connect timeout (ms); the lock wait and the session's statements are bounded by `lockTimeoutMs`
 * @param applicationName the lock session's application_name (seen in pg_stat_activity)
 * @param lockTimeoutMs bound of the wait for the lock (the lock session's statement timeout), ms
 * @returns what `work` returns
 * @throws the database error when PostgreSQL can't be reached or the wait times out; `work`'s own error (the lock is released)
 */
export async function underSessionLock<T>(url: string, key: string, settings: DatabaseSettings, applicationName: string, lockTimeoutMs: number, work: () => Promise<T>): Promise<T> {
  const lock = new Client({ connectionString: url, application_name: applicationName, ...pgClientOptions(settings, lockTimeoutMs) });
  // A connection error on the idle lock session must not crash the process; the work's own error is thrown.
  lock.on('error', () => undefined);
  await lock.connect();
  try {
    await lock.query(`SELECT pg_advisory_lock(${BigInt(key)})`);
    return await work();
  } finally {
    await lock.query(`SELECT pg_advisory_unlock(${BigInt(key)})`).catch(() => undefined);
    await lock.end().catch(() => undefined);
  }
}
