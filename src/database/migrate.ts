import 'reflect-metadata';
import { join } from 'node:path';
import { loadConfig } from '../app.config';
import { migrateUnderLock } from './migration-lock';
import { describeThrown } from '../common/errors/describe-thrown';
import type * as EmbeddedPostgresModule from './embedded-postgres';

/** Loads src/database/embedded-postgres.ts when first needed (the package it wraps hooks process signals when loaded). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loadEmbeddedPostgres = () => require('./embedded-postgres') as typeof EmbeddedPostgresModule;

/**
 * `npm run migration:run`: applies pending migrations to DATABASE_URL (or the embedded database) and exits.
 * The app does the same at every start; this is for deploy pipelines that migrate before rolling out. Both take the
 * same advisory lock (migration-lock.ts), so this may run while instances start. The embedded-postgres package is
 * loaded only when DATABASE_URL is unset (it hooks process signals when imported).
 */
async function migrate(): Promise<void> {
  const config = loadConfig(process.env);
  const embedded = config.databaseUrl
    ? undefined
    : await loadEmbeddedPostgres().startEmbeddedPostgres({ dataDir: join(config.dataDir, 'postgres'), port: config.embeddedPostgresPort });
  try {
    const applied = await migrateUnderLock(config.databaseUrl ?? embedded!.url, config.database);
    process.stdout.write(`Applied ${applied.length} migration(s)${applied.length ? ': ' + applied.map((m) => m.name).join(', ') : ''}\n`);
  } finally {
    await embedded?.stop();
  }
}

void migrate().catch((error: unknown) => {
  process.stderr.write(`Migration failed: ${describeThrown(error)}\n`);
  process.exit(1);
});
