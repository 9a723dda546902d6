import 'reflect-metadata';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from '../app.config';
import { buildDataSourceOptions } from './data-source-options';
import { startEmbeddedPostgres } from './embedded-postgres';
import { describeThrown } from '../common/errors/describe-thrown';

/**
 * `npm run migration:run`: applies pending migrations to DATABASE_URL (or the embedded database) and exits.
 * The app does the same at every start; this is for deploy pipelines that migrate before rolling out.
 */
async function migrate(): Promise<void> {
  const config = loadConfig(process.env);
  const embedded = config.databaseUrl
    ? undefined
    : await startEmbeddedPostgres({ dataDir: join(config.dataDir, 'postgres'), port: config.embeddedPostgresPort });
  const dataSource = new DataSource({ ...buildDataSourceOptions(config.databaseUrl ?? embedded!.url), migrationsRun: false });
  try {
    await dataSource.initialize();
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    process.stdout.write(`Applied ${applied.length} migration(s)${applied.length ? ': ' + applied.map((m) => m.name).join(', ') : ''}\n`);
  } finally {
    await dataSource.destroy();
    await embedded?.stop();
  }
}

void migrate().catch((error: unknown) => {
  process.stderr.write(`Migration failed: ${describeThrown(error)}\n`);
  process.exit(1);
});
