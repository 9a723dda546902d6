import { Client } from 'pg';
import { migrateUnderLock } from '../../src/database/migration-lock';

/**
 * Environment variable naming the database that global-setup migrated once for the whole e2e run. Suites copy it
 * (`CREATE DATABASE … TEMPLATE`, a file copy of about 0.1 s) instead of migrating a fresh database at each app start
 * (2–4 s of 42 migrations, times about 170 starts per pass). The app still runs its migrations at start and finds none
 * pending; suites that test the migrations themselves make an empty database of their own.
 */
export const TEMPLATE_DATABASE_ENV = 'ATRIUM_TEST_TEMPLATE_DATABASE';

/** `url` with its database name replaced. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Runs `work` on one connection to `url` (a server's default database, or any database), then closes it. */
export async function withAdmin<T>(serverUrl: string, work: (admin: Client) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/**
 * Creates the run's migrated template database on `serverUrl` (global-setup): an empty database, then every migration
 * under the app's own lock (src/database/migration-lock.ts).
 * @returns its name, to be set as TEMPLATE_DATABASE_ENV and dropped by {@link dropDatabase}
 */
export async function createTemplateDatabase(serverUrl: string): Promise<string> {
  const name = `atrium_e2e_template_${process.pid}_${Date.now().toString(36)}`;
  await withAdmin(serverUrl, (admin) => admin.query(`CREATE DATABASE ${name}`));
  await migrateUnderLock(withDatabase(serverUrl, name));
  return name;
}

/** Drops database `name` on `serverUrl`, closing its sessions (a suite's at close, the template at teardown); nothing without both. */
export async function dropDatabase(serverUrl: string | undefined, name: string | undefined): Promise<void> {
  if (!serverUrl || !name) return;
  await withAdmin(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/**
 * Creates a suite's database on the server of ATRIUM_TEST_DATABASE_URL, named `<prefix>_<pid>_<time>_<random>`:
 * a copy of the run's migrated template when there is one, else empty (the app migrates it at start).
 * @returns the database's name and its URL
 * @throws Error when ATRIUM_TEST_DATABASE_URL is not set (the suite was not started through jest's global-setup)
 */
export async function createSuiteDatabase(prefix: string): Promise<{ name: string; url: string; serverUrl: string }> {
  const serverUrl = process.env.ATRIUM_TEST_DATABASE_URL;
  if (!serverUrl) throw new Error('ATRIUM_TEST_DATABASE_URL is not set: run the e2e tests through jest (global-setup).');
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  const template = process.env[TEMPLATE_DATABASE_ENV];
  await withAdmin(serverUrl, (admin) => admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`));
  return { name, url: withDatabase(serverUrl, name), serverUrl };
}
