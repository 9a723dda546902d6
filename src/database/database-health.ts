import { OnApplicationShutdown } from '@nestjs/common';
import type { Pool } from 'pg';
import { GuardedPool } from './guarded-pg';
import type { DatabaseSettings } from './database.config';

/** How long a probe's answer is reused by requests that arrive after it (ms): load balancers poll in bursts. */
const REUSE_MS = 500;

/**
 * The bounded database probe behind GET /api/health (issue 20 item 1: "says `database: down` within 2 s"). It runs
 * `SELECT 1` on its own one-connection pool, so a full or stuck main pool can't delay it, and gives up after
 * DATABASE_HEALTH_TIMEOUT_MS (connect and query alike, also when the server is frozen and TCP still accepts).
 * Concurrent callers share one probe; its answer is reused for 500 ms.
 */
export class DatabaseHealth implements OnApplicationShutdown {
  private readonly pool: Pool;
  private inFlight?: Promise<boolean>;
  private last?: { up: boolean; at: number };

  /**
   * @param url postgres:// URL of the app's database
   * @param settings `healthTimeoutMs` (ms) bounds every probe
   */
  constructor(url: string, private readonly settings: Pick<DatabaseSettings, 'healthTimeoutMs'>) {
    this.pool = new GuardedPool({
      connectionString: url,
      application_name: 'atrium-health',
      max: 1,
      connectionTimeoutMillis: settings.healthTimeoutMs,
      query_timeout: settings.healthTimeoutMs,
      statement_timeout: settings.healthTimeoutMs,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
    });
    // An idle connection that breaks (database stopped) is dropped and reported by the next probe, not thrown.
    this.pool.on('error', () => undefined);
  }

  /**
   * @returns true when PostgreSQL answered `SELECT 1` within DATABASE_HEALTH_TIMEOUT_MS (ms); never throws
   */
  async isUp(): Promise<boolean> {
    if (this.last && Date.now() - this.last.at < REUSE_MS) return this.last.up;
    this.inFlight ??= this.probe().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  /** Closes the probe's connection at shutdown. */
  async onApplicationShutdown(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }

  private async probe(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    // A hard bound on top of pg's own timeouts: a connection stuck in a queue still answers in time.
    const deadline = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), this.settings.healthTimeoutMs + 100)));
    const up = await Promise.race([this.pool.query('SELECT 1').then(() => true, () => false), deadline]);
    clearTimeout(timer);
    this.last = { up, at: Date.now() };
    return up;
  }
}
