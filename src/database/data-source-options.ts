import type { DataSourceOptions } from 'typeorm';
import { ALL_MIGRATIONS } from '../../migrations';
import { SnakeNamingStrategy } from './snake-naming.strategy';
import { TypeOrmNestLogger } from './typeorm-logger';

/**
 * TypeORM options for one PostgreSQL database (DESIGN.md, Persistence): schema from `migrations/` only
 * (`synchronize` off), migrations run at start-up, timestamps in UTC. Entities are added by each wing's
 * `TypeOrmModule.forFeature` (autoLoadEntities), so this file knows no wing.
 * @param url postgres:// connection URL
 */
export function buildDataSourceOptions(url: string): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    migrations: ALL_MIGRATIONS,
    migrationsRun: true,
    migrationsTransactionMode: 'each',
    synchronize: false,
    namingStrategy: new SnakeNamingStrategy(),
    extra: { options: '-c timezone=UTC', max: 20 },
    logger: new TypeOrmNestLogger(),
    logging: ['error', 'warn', 'migration'],
    maxQueryExecutionTime: 1000,
  };
}
