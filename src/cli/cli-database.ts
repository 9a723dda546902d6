import { join } from 'node:path';
import { DataSource, type EntitySchema, type Logger as TypeOrmLogger } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { buildDataSourceOptions } from '../database/data-source-options';
import { runningEmbeddedDatabaseUrl, startEmbeddedPostgres } from '../database/embedded-postgres';
import { migrateUnderLock } from '../database/migration-lock';

/** TypeORM logger that drops everything. */
const SILENT_TYPEORM_LOGGER: TypeOrmLogger = {
  logQuery: () => undefined,
  logQueryError: () => undefined,
  logQuerySlow: () => undefined,
  logSchemaBuild: () => undefined,
  logMigration: () => undefined,
  log: () => undefined,
};

/** How a CLI reached the database. */
export type DatabaseSource = 'DATABASE_URL' | 'running embedded server' | 'embedded server started for this command';

/** An open connection to Atrium's database, and how to let go of it. */
export interface CliDatabase {
  dataSource: DataSource;
  source: DatabaseSource;
  close(): Promise<void>;
}

/**
 * Opens Atrium's database the way the app does (DESIGN.md, Persistence), and runs pending migrations:
 * - DATABASE_URL set: that server;
 * - unset, and a live Atrium (or command) runs the embedded PostgreSQL of $DATA_DIR/postgres: that server, on the port
 *   its `postmaster.pid` names (whatever EMBEDDED_POSTGRES_PORT says), as the app's database owner;
 * - unset and nothing running: the embedded server is started for this command and stopped after it (while it runs,
 *   the app cannot start on the same data folder — commands take a second or two). A server left by a killed Atrium
 *   is stopped first (src/database/embedded-postgres.ts).
 * @param config the validated environment (loadConfig of src/app.config.ts), like the app's
 * @param entities the entities the command's services use (none for raw SQL)
 * @throws Error when the database cannot be reached or migrated
 */
export async function openCliDatabase(config: AppConfig, entities: (Function | EntitySchema)[]): Promise<CliDatabase> {
  let url = config.databaseUrl;
  let source: DatabaseSource = 'DATABASE_URL';
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!url) {
    const dataDir = join(config.dataDir, 'postgres');
    url = await runningEmbeddedDatabaseUrl(dataDir);
    if (url) {
      source = 'running embedded server';
    } else {
      const embedded = await startEmbeddedPostgres({ dataDir, port: config.embeddedPostgresPort });
      url = embedded.url;
      stopEmbedded = () => embedded.stop();
      source = 'embedded server started for this command';
    }
  }
  const dataSource = new DataSource({
    ...buildDataSourceOptions(url),
    // Migrations run first, under the same advisory lock as the app's, so a command started beside a starting app
    // never races it.
    migrationsRun: false,
    entities,
    // The CLI's stdout is its answer: no migration or query chatter (errors surface as exceptions).
    logger: SILENT_TYPEORM_LOGGER,
    extra: { options: '-c timezone=UTC', max: 2 },
  });
  try {
    await migrateUnderLock(url, undefined, SILENT_TYPEORM_LOGGER);
    await dataSource.initialize();
  } catch (error) {
    await stopEmbedded?.();
    throw error;
  }
  return {
    dataSource,
    source,
    close: async () => {
      await dataSource.destroy();
      await stopEmbedded?.();
    },
  };
}
