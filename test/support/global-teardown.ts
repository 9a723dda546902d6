import type { EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { dropDatabase, TEMPLATE_DATABASE_ENV } from './test-database';

/** Drops the run's template database, then stops the embedded PostgreSQL that global-setup started, if any. */
export default async function globalTeardown(): Promise<void> {
  await dropDatabase(process.env.ATRIUM_TEST_DATABASE_URL, process.env[TEMPLATE_DATABASE_ENV]);
  const database = (globalThis as { atriumTestDatabase?: EmbeddedDatabase }).atriumTestDatabase;
  await database?.stop();
}
