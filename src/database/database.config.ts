import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, Max, Min } from 'class-validator';
import { ConfigVariable, declareConfig, toFlag } from '../config/config-variable';

const DATABASE = 'Database and files';

/**
 * Timeouts and pool sizes of the app's PostgreSQL connections (issue 20 items 1 and 6): a database that stops or
 * freezes turns into 503 answers within these bounds instead of requests that hang.
 *
 * Connections per instance, at most: `DATABASE_POOL_MAX` (requests, sweepers, run and analysis steps) +
 * `DATABASE_JOBS_POOL_MAX` (pg-boss: fetching, completing, enqueueing without a transaction, maintenance) + 1 (the
 * health probe) + 2 while migrating at start-up (the advisory-lock session and the migration session; then 1 while
 * creating the job queues, advisory-lock.ts). Defaults:
 * 10 + 4 + 1 = 15, so a PostgreSQL with the default `max_connections = 100` serves 6 instances with room for admin tools.
 */
export class DatabaseVariables {
  @ConfigVariable({
    group: DATABASE,
    description:
      'longest wait for a new PostgreSQL connection, and for a free one from a full pool; past it the request answers 503 with Retry-After',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100) @Max(600_000)
  DATABASE_CONNECT_TIMEOUT_MS: number = 5_000;

  @ConfigVariable({
    group: DATABASE,
    description:
      'longest statement of requests, jobs and sweeps (PostgreSQL `statement_timeout`; the client gives up 500 ms later if the server does not answer at all, e.g. frozen); reports and exports read in batches, each a statement of its own',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100) @Max(3_600_000)
  DATABASE_STATEMENT_TIMEOUT_MS: number = 30_000;

  @ConfigVariable({
    group: DATABASE,
    description:
      'longest statement of a migration (index builds and backfills on big tables), run at start-up and by `npm run migration:run` on their own connection; 0 = no limit',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  DATABASE_MIGRATION_STATEMENT_TIMEOUT_MS: number = 600_000;

  @ConfigVariable({
    group: DATABASE,
    description:
      'most connections of the app\'s main pool per instance; an instance opens at most DATABASE_POOL_MAX + DATABASE_JOBS_POOL_MAX + 1 (health probe), + 2 while migrating at start-up',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(2) @Max(1000)
  DATABASE_POOL_MAX: number = 10;

  @ConfigVariable({ group: DATABASE, description: 'most connections of the job runner\'s (pg-boss) pool per instance', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(2) @Max(100)
  DATABASE_JOBS_POOL_MAX: number = 4;

  @ConfigVariable({
    group: DATABASE,
    description: 'GET /api/health answers `database: down` when PostgreSQL has not answered a probe within this long; probes are shared by requests arriving within 500 ms',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100) @Max(10_000)
  DATABASE_HEALTH_TIMEOUT_MS: number = 1_500;

  @ConfigVariable({
    group: DATABASE,
    description:
      'run the page statements of the hot lists as named prepared statements, parsed and planned once per pooled connection instead of on every request. Turn off behind a connection pooler that cannot keep them (PgBouncer before 1.21 in transaction mode)',
    unit: 'flag',
  })
  @IsOptional() @Transform(toFlag) @IsBoolean()
  DATABASE_PREPARED_STATEMENTS: boolean = true;
}

/** The connection settings every pool of the app uses (ms and counts as named). */
export interface DatabaseSettings {
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  migrationStatementTimeoutMs: number;
  poolMax: number;
  jobsPoolMax: number;
  healthTimeoutMs: number;
  /** Named prepared statements for registered texts (guarded-pg.ts `prepareOnFirstUse`). */
  preparedStatements: boolean;
}

/** Defaults, for tools and tests that build a pool without the app's configuration. */
export const DEFAULT_DATABASE_SETTINGS: DatabaseSettings = {
  connectTimeoutMs: 5_000,
  statementTimeoutMs: 30_000,
  migrationStatementTimeoutMs: 600_000,
  poolMax: 10,
  jobsPoolMax: 4,
  healthTimeoutMs: 1_500,
  preparedStatements: true,
};

/** The slice `database`: see {@link DatabaseSettings}. */
export const databaseConfig = declareConfig({
  wing: 'core',
  variables: DatabaseVariables,
  resolve: (vars) => ({
    database: {
      connectTimeoutMs: vars.DATABASE_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: vars.DATABASE_STATEMENT_TIMEOUT_MS,
      migrationStatementTimeoutMs: vars.DATABASE_MIGRATION_STATEMENT_TIMEOUT_MS,
      poolMax: vars.DATABASE_POOL_MAX,
      jobsPoolMax: vars.DATABASE_JOBS_POOL_MAX,
      healthTimeoutMs: vars.DATABASE_HEALTH_TIMEOUT_MS,
      preparedStatements: vars.DATABASE_PREPARED_STATEMENTS,
    } satisfies DatabaseSettings,
  }),
});

/** The resolved slice. */
export type DatabaseConfig = ReturnType<typeof databaseConfig.resolve>;

declare module '../config/app-config' {
  /** The shared core's `database` slice. */
  interface AppConfig extends DatabaseConfig {}
}

/**
 * Options of a node-postgres client or pool with these settings: `connectionTimeoutMillis` (connect, and a free
 * client of a full pool), `statement_timeout` (server side) and `query_timeout` (client side, 500 ms later, for a
 * server that does not answer at all), TCP keep-alive so a dead peer's socket errors instead of hanging.
 * @param settings the resolved settings
 * @param statementTimeoutMs overrides the statement limit (migrations); 0 = none
 */
export function pgClientOptions(settings: DatabaseSettings, statementTimeoutMs = settings.statementTimeoutMs): Record<string, number | boolean> {
  return {
    connectionTimeoutMillis: settings.connectTimeoutMs,
    ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + 500 } : {}),
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
}
