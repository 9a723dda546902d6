import { Client } from 'pg';

/**
 * URL of the app's embedded PostgreSQL on `port` (the user, password and database that
 * src/database/embedded-postgres.ts creates).
 */
export function embeddedDatabaseUrl(port: number): string {
  return `postgres://atrium:atrium@127.0.0.1:${port}/atrium`;
}

/**
 * Whether a PostgreSQL server answers at `url` with these credentials.
 * @returns true when a connection opens; false when nothing listens (connection refused or timed out)
 * @throws Error for anything else (wrong credentials, missing database): the port holds something unexpected
 */
export async function postgresAnswers(url: string, timeoutMs = 3000): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED' || /timeout/i.test((error as Error).message)) return false;
    throw new Error(`A server answers on ${new URL(url).host} but not as Atrium's embedded PostgreSQL (${(error as Error).message}).`);
  } finally {
    await client.end().catch(() => undefined);
  }
}
