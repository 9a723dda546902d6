import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { freePort } from './free-port';
import { createTemplateDatabase, TEMPLATE_DATABASE_ENV } from './test-database';

/**
 * Gives the e2e suites a PostgreSQL server: `DATABASE_URL` when set (CI), otherwise an embedded one in a temp
 * directory, removed at teardown. Suites read the server's URL from `ATRIUM_TEST_DATABASE_URL` and create a fresh
 * database each, copied from the template database migrated here once (test/support/test-database.ts).
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.DATABASE_URL) {
    process.env.ATRIUM_TEST_DATABASE_URL = process.env.DATABASE_URL;
  } else {
    await startEmbeddedServer();
  }
  const template = await createTemplateDatabase(process.env.ATRIUM_TEST_DATABASE_URL!);
  process.env[TEMPLATE_DATABASE_ENV] = template;
}

/** Starts the run's embedded PostgreSQL and points ATRIUM_TEST_DATABASE_URL at it (as the superuser). */
async function startEmbeddedServer(): Promise<void> {
  // Not inside a mkdtemp folder: that is mode 0700, and as root the server runs as the `postgres` user.
  const database = await startEmbeddedPostgres({
    dataDir: join(tmpdir(), `atrium-test-pg-${randomBytes(6).toString('hex')}`),
    port: await freePort(),
    database: 'atrium_test',
    persistent: false,
  });
  (globalThis as { atriumTestDatabase?: unknown }).atriumTestDatabase = database;
  // The suites create and drop a database each: that needs the superuser (the app's own role cannot CREATE DATABASE).
  process.env.ATRIUM_TEST_DATABASE_URL = database.superuserUrl;
}
