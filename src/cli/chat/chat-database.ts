import { join } from 'node:path';
import { DataSource, type Logger as TypeOrmLogger } from 'typeorm';
import { OAuthClientEntity } from '../../chat/auth/oauth-client.entity';
import { TenantEntity } from '../../chat/tenants/tenant.entity';
import type { AppConfig } from '../../config/app-config';
import { buildDataSourceOptions } from '../../database/data-source-options';
import { startEmbeddedPostgres } from '../../database/embedded-postgres';
import { embeddedDatabaseUrl, postgresAnswers } from './postgres-probe';

/** TypeORM logger that drops everything. */
const SILENT_TYPEORM_LOGGER: TypeOrmLogger = {
  logQuery: () => undefined,
  logQueryError: () => undefined,
  logQuerySlow: () => undefined,
  logSchemaBuild: () => undefined,
  logMigration: () => undefined,
  log: () => undefined,
};

/** How the CLI reached the database. */
export type DatabaseSource = 'DATABASE_URL' | 'running embedded server' | 'embedded server started for this command';

/** An open connection to Atrium's database, and how to let go of it. */
export interface ChatCliDatabase {
  dataSource: DataSource;
  source: DatabaseSource;
  close(): Promise<void>;
}

/**
 * Opens Atrium's database the way the app does (DESIGN.md, Persistence), and runs pending migrations:
 * - DATABASE_URL set: that server;
 * - unset, and the app is running on its embedded PostgreSQL (EMBEDDED_POSTGRES_PORT answers): that server, shared
 *   with the app (no second server on the same data folder);
 * - unset and nothing running: the embedded server on $DATA_DIR/postgres is started for this command and stopped
 *   after it (while it runs, the app cannot start on the same data folder — commands take a second or two).
 * @param config the validated environment (loadConfig of src/app.config.ts), like the app's
 */
export async function openChatDatabase(config: AppConfig): Promise<ChatCliDatabase> {
  let url = config.databaseUrl;
  let source: DatabaseSource = 'DATABASE_URL';
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!url) {
    url = embeddedDatabaseUrl(config.embeddedPostgresPort);
    if (await postgresAnswers(url)) {
      source = 'running embedded server';
    } else {
      const embedded = await startEmbeddedPostgres({ dataDir: join(config.dataDir, 'postgres'), port: config.embeddedPostgresPort });
      url = embedded.url;
      stopEmbedded = () => embedded.stop();
      source = 'embedded server started for this command';
    }
  }
  const dataSource = new DataSource({
    ...buildDataSourceOptions(url),
    entities: [TenantEntity, OAuthClientEntity],
    // The CLI's stdout is its answer: no migration or query chatter (errors surface as exceptions).
    logger: SILENT_TYPEORM_LOGGER,
    extra: { options: '-c timezone=UTC', max: 2 },
  });
  try {
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
