import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { type AppProcess, buildApp, createClusterDatabase, killAppProcess, startAppProcess } from './app-process';
import { freePort } from './free-port';
import { clusterFolder, createPostgresCluster, type PostgresCluster } from './postgres-cluster';

/**
 * What a fault suite (issue 20) needs around the app it breaks: a PostgreSQL cluster of its own, started, that the
 * suite may stop, freeze or restart; the app built into a temp folder and run as a child process; a data folder; and
 * the app's database on that cluster. One app at a time: {@link FaultHarness.start} replaces a running one after the
 * caller killed it.
 */
export interface FaultHarness {
  cluster: PostgresCluster;
  /** DATA_DIR of the app (kept across restarts). */
  dataDir: string;
  /** The app's database URL (superuser), set by {@link FaultHarness.createDatabase}. */
  databaseUrl: string;
  /** The running app, if any. */
  app: AppProcess | undefined;
  /** Builds the app once (dist-like layout in a temp folder); later calls reuse it. @returns its main.js */
  build(): string;
  /**
   * Creates the app's database `name` on the cluster.
   * @returns the environment every fault suite's app starts with: DATABASE_URL, DATA_DIR, a fresh ATRIUM_SECRET_KEY,
   *   and database connect and statement timeouts of 2 s and 3 s (ms), so an outage is seen quickly
   */
  createDatabase(name: string): Promise<Record<string, string>>;
  /** Starts the built app with `env` as a child process (building it first if needed). */
  start(env: Record<string, string>): Promise<AppProcess>;
  /** Runs one statement on the app's database on a connection of its own. @returns the rows */
  sql<T = Record<string, any>>(text: string, values?: unknown[]): Promise<T[]>;
  /** Kills the app (SIGKILL), removes the cluster and the temp folders. */
  remove(): Promise<void>;
}

/**
 * Starts a fault harness: a new PostgreSQL cluster on a free port, started, with folders named after `name`.
 * @throws when the embedded PostgreSQL binaries can't initialise or start the cluster
 */
export async function startFaultHarness(name: string): Promise<FaultHarness> {
  const clusterDir = clusterFolder(name);
  const cluster = await createPostgresCluster({ dataDir: join(clusterDir, 'data'), port: await freePort() });
  await cluster.start();
  const buildDir = mkdtempSync(join(tmpdir(), `${name}-build-`));
  const dataDir = mkdtempSync(join(tmpdir(), `${name}-data-`));
  let mainJs: string | undefined;
  const harness: FaultHarness = {
    cluster,
    dataDir,
    databaseUrl: '',
    app: undefined,
    build: () => (mainJs ??= buildApp(buildDir)),
    async createDatabase(database) {
      harness.databaseUrl = await createClusterDatabase(cluster, database);
      return {
        DATABASE_URL: harness.databaseUrl,
        DATA_DIR: dataDir,
        ATRIUM_SECRET_KEY: randomBytes(32).toString('hex'),
        DATABASE_CONNECT_TIMEOUT_MS: '2000',
        DATABASE_STATEMENT_TIMEOUT_MS: '3000',
      };
    },
    async start(env) {
      harness.app = await startAppProcess(harness.build(), env);
      return harness.app;
    },
    async sql<T>(text: string, values: unknown[] = []) {
      const client = new Client({ connectionString: harness.databaseUrl });
      await client.connect();
      try {
        return (await client.query(text, values)).rows as T[];
      } finally {
        await client.end();
      }
    },
    async remove() {
      await killAppProcess(harness.app);
      await cluster.remove();
      for (const folder of [clusterDir, buildDir, dataDir]) rmSync(folder, { recursive: true, force: true });
    },
  };
  return harness;
}
