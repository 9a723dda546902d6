import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { buildDataSourceOptions } from './data-source-options';

/** The one PostgreSQL DataSource, migrated at start-up (DESIGN.md, Persistence). */
@Module({})
export class DatabaseModule {
  /** @param url postgres:// URL (from DATABASE_URL or the embedded server) */
  static forRoot(url: string): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [TypeOrmModule.forRoot({ ...buildDataSourceOptions(url), autoLoadEntities: true, retryAttempts: 3, retryDelay: 1000 })],
    };
  }
}
