import type { DataSourceOptions } from 'typeorm';
import { ALL_MIGRATIONS } from '../../migrations';
import { DEFAULT_DATABASE_SETTINGS, type DatabaseSettings, pgClientOptions } from './database.config';
import { guardedPgDriver } from './guarded-pg';
import { SnakeNamingStrategy } from './snake-naming.strategy';
import { TypeOrmNestLogger } from './typeorm-logger';

/**
 * Session settings of every pooled connection. The app's statements are short and index-bounded (issue 23): PostgreSQL's
 * parallel workers and JIT compilation cost more to start than they save on them (a 3 ms index-only walk of the
 * scenario names took 12 ms with two parallel workers at 1M rows), and on 2 cores the workers take the CPU other
 * requests need.
 */
export const OLTP_SESSION_OPTIONS = '-c max_parallel_workers_per_gather=0 -c jit=off';

/**
 * TypeORM options for one PostgreSQL database (DESIGN.md, Persistence): schema from `migrations/` only
 * (`synchronize` off), migrations run at start-up, timestamps in UTC. Entities are added by each wing's
 * `TypeOrmModule.forFeature` (autoLoadEntities), so this file knows no wing. The pool has `settings.poolMax`
 * connections, each with the connect and statement timeouts of issue 20 item 1 (database.config.ts), so a stopped or
 * frozen database fails a query within those bounds (then answered 503 by the problem filter), and the
 * {@link OLTP_SESSION_OPTIONS}. With `settings.preparedStatements`, texts registered by guarded-pg.ts
 * `prepareOnFirstUse` (the hot lists' page statements) run as named prepared statements.
 * @param url postgres:// connection URL
 * @param settings pool size and timeouts (ms); the documented defaults when omitted (tools, tests)
 */
export function buildDataSourceOptions(url: string, settings: DatabaseSettings = DEFAULT_DATABASE_SETTINGS): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    // pg with a pool whose clients drop their socket after a query read timeout (a frozen server): guarded-pg.ts.
    driver: guardedPgDriver(),
    migrations: ALL_MIGRATIONS,
    migrationsRun: true,
    migrationsTransactionMode: 'each',
    synchronize: false,
    namingStrategy: new SnakeNamingStrategy(),
    extra: {
      options: `-c timezone=UTC ${OLTP_SESSION_OPTIONS}`,
      max: settings.poolMax,
      application_name: 'atrium',
      preparedStatements: settings.preparedStatements,
      ...pgClientOptions(settings),
    },
    logger: new TypeOrmNestLogger(),
    logging: ['error', 'warn', 'migration'],
    maxQueryExecutionTime: 1000,
  };
}
