import type { EmbeddedDatabase } from '../../src/database/embedded-postgres';

/** Stops the embedded PostgreSQL that global-setup started, if any. */
export default async function globalTeardown(): Promise<void> {
  const database = (globalThis as { atriumTestDatabase?: EmbeddedDatabase }).atriumTestDatabase;
  await database?.stop();
}
