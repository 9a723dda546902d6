import { DataSource, type Logger as TypeOrmLogger, type Migration } from 'typeorm';
import { buildDataSourceOptions } from './data-source-options';
import { underSessionLock } from './advisory-lock';
import { DEFAULT_DATABASE_SETTINGS, type DatabaseSettings, pgClientOptions } from './database.config';

/**
 * Key of the session-level advisory lock that serialises migrations (issue 20 item 6). One fixed bigint, shared by
 * every Atrium version: `'atrium-m'` as 8 ASCII bytes.
 */
export const MIGRATION_LOCK_KEY = '7022363516244667757';

/**
 * Applies the pending migrations of `migrations/` under a PostgreSQL advisory lock, so instances started together
 * never race (issue 20 item 6): the lock is taken on a dedicated session (a plain pg client), the migrations run on a
 * second one-connection DataSource whose statements may last DATABASE_MIGRATION_STATEMENT_TIMEOUT_MS, each in its
 * own transaction. An instance that waited finds nothing left to apply. The lock goes with the session, so a process
 * killed mid-migration releases it (its transaction rolls back too).
 * @param url postgres:// URL of the app's database
 * @param settings connect timeout and migration statement limit (ms); the lock wait is bounded by the same limit
 * @param logger TypeORM logger of the migration session (the CLIs pass a silent one: their stdout is their answer)
 * @returns the migrations applied by this call (empty when another instance had applied them)
 * @throws the database error when PostgreSQL can't be reached or a migration fails (the lock is released)
 */
export async function migrateUnderLock(url: string, settings: DatabaseSettings = DEFAULT_DATABASE_SETTINGS, logger?: TypeOrmLogger): Promise<Migration[]> {
  const limit = settings.migrationStatementTimeoutMs;
  return underSessionLock(url, MIGRATION_LOCK_KEY, settings, 'atrium-migration-lock', limit, async () => {
    const options = buildDataSourceOptions(url, { ...settings, poolMax: 1 });
    const dataSource = new DataSource({
      ...options,
      migrationsRun: false,
      extra: { ...(options.extra as object), max: 1, application_name: 'atrium-migrations', ...pgClientOptions(settings, limit) },
      ...(logger ? { logger } : {}),
    } as typeof options);
    await dataSource.initialize();
    try {
      return await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await dataSource.destroy();
    }
  });
}
