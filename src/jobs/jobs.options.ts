import { DEFAULT_DATABASE_SETTINGS, type DatabaseSettings } from '../database/database.config';
import { JobConfigurationError } from './job-definition';

/** Tuning of the job runner; every field is optional (DESIGN.md, Jobs). */
export interface JobsModuleOptions {
  /** PostgreSQL schema of pg-boss's tables, created and migrated by pg-boss itself. Default `pgboss`. */
  schema?: string;
  /** Seconds an idle worker waits between polls of its queue; pg-boss's minimum is 0.5. Default 0.5. */
  pollingIntervalSeconds?: number;
  /**
   * Seconds between maintenance passes (one instance at a time): they fail expired active jobs into retry, which
   * is how a job held by a dead process comes back, and archive old ones. Integer >= 1; default 30.
   */
  maintenanceIntervalSeconds?: number;
  /**
   * Milliseconds shutdown waits for running handlers before pg-boss fails the rest into retry. pg-boss waits at
   * least 1000. Default 5000 (below the app's default SHUTDOWN_GRACE_MS of 10 s).
   */
  shutdownTimeoutMs?: number;
  /** Start workers for the found handlers. False = this instance only enqueues. Default true. */
  runWorkers?: boolean;
  /**
   * Pool size and timeouts of the runner's own connections (issue 20 item 1): `jobsPoolMax` connections, the connect
   * and statement timeouts of the app's pool. Default: the documented defaults of database.config.ts.
   */
  database?: DatabaseSettings;
  /**
   * Milliseconds a job's completion or failure is retried while the database is unreachable (pg-boss records it
   * without awaiting; a record that never lands leaves the job active until it expires). Default 120000.
   */
  settleRetryMs?: number;
}

/** Options with every default filled in, plus the database URL. */
export interface ResolvedJobsOptions extends Required<JobsModuleOptions> {
  databaseUrl: string;
}

/** Injection token of the {@link ResolvedJobsOptions}. */
export const JOBS_OPTIONS = Symbol('JOBS_OPTIONS');

/**
 * Fills in defaults and checks ranges.
 * @throws JobConfigurationError naming the bad option
 */
export function resolveJobsOptions(databaseUrl: string, options: JobsModuleOptions = {}): ResolvedJobsOptions {
  const resolved: ResolvedJobsOptions = {
    databaseUrl,
    schema: 'pgboss',
    pollingIntervalSeconds: 0.5,
    maintenanceIntervalSeconds: 30,
    shutdownTimeoutMs: 5000,
    runWorkers: true,
    database: DEFAULT_DATABASE_SETTINGS,
    settleRetryMs: 120_000,
    ...options,
  };
  if (!/^[a-z_][a-z0-9_]{0,49}$/.test(resolved.schema)) throw new JobConfigurationError(`Jobs: invalid schema name "${resolved.schema}".`);
  if (!(resolved.pollingIntervalSeconds >= 0.5)) throw new JobConfigurationError('Jobs: pollingIntervalSeconds must be at least 0.5.');
  if (!Number.isInteger(resolved.maintenanceIntervalSeconds) || resolved.maintenanceIntervalSeconds < 1) {
    throw new JobConfigurationError('Jobs: maintenanceIntervalSeconds must be an integer >= 1.');
  }
  if (!(resolved.shutdownTimeoutMs >= 0)) throw new JobConfigurationError('Jobs: shutdownTimeoutMs must be >= 0.');
  if (!(resolved.settleRetryMs >= 0)) throw new JobConfigurationError('Jobs: settleRetryMs must be >= 0.');
  return resolved;
}

/**
 * The app's job-runner options from its configuration: the `database` slice's pool size and timeouts, and a handler
 * grace of 70 % of SHUTDOWN_GRACE_MS (at least 1 s), leaving the rest for handing unfinished jobs back to the queue
 * and closing the pools before the process must exit (issue 20 item 3).
 * @param config the resolved AppConfig (only `database` and `shutdownGraceMs` are read)
 */
export function jobsOptionsOf(config: { database?: DatabaseSettings; shutdownGraceMs: number }): JobsModuleOptions {
  return { database: config.database ?? DEFAULT_DATABASE_SETTINGS, shutdownTimeoutMs: Math.max(1000, Math.floor(config.shutdownGraceMs * 0.7)) };
}
