import { Client } from 'pg';
import { readEmbeddedCredentials } from '../../database/embedded-cluster-state';

/**
 * URL of the app's database on the embedded PostgreSQL of `dataDir` at `port`, as the database owner whose
 * password src/database/embedded-postgres.ts keeps beside the cluster (`<dataDir>.credentials.json`).
 * @param dataDir the cluster's data directory ($DATA_DIR/postgres)
 * @throws Error when the cluster has no credentials file (never started)
 */
export async function embeddedDatabaseUrl(dataDir: string, port: number): Promise<string> {
  const credentials = await readEmbeddedCredentials(dataDir);
  if (!credentials) throw new Error(`${dataDir} has no credentials file: the embedded PostgreSQL was never started there`);
  return `postgres://${credentials.owner}:${credentials.ownerPassword}@127.0.0.1:${port}/atrium`;
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
