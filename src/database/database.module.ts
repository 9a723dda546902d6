import { DynamicModule, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { installSecretSealer, secretSealer } from '../common/crypto/secret-sealer';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { buildDataSourceOptions } from './data-source-options';
import { DEFAULT_DATABASE_SETTINGS, type DatabaseSettings } from './database.config';
import { DatabaseHealth } from './database-health';
import { migrateUnderLock } from './migration-lock';
import { resealSecrets } from './sealed-columns';
import { sealerFor } from './secret-sealer-for';

/**
 * The one PostgreSQL DataSource, migrated at start-up (DESIGN.md, Persistence). Before it reads a row, the secret
 * sealer is installed (ATRIUM_SECRET_KEY or `$DATA_DIR/secret.key`); after the migrations, secrets still stored in
 * plain text are sealed (issue 19, item 6). Migrations run first under an advisory lock on their own connections
 * (migration-lock.ts, issue 20 item 6); the pool's size and timeouts come from the `database` slice (issue 20 item 1).
 * Also provides {@link DatabaseHealth}, the bounded probe of GET /api/health.
 */
@Module({})
export class DatabaseModule {
  /** @param url postgres:// URL (from DATABASE_URL or the embedded server) */
  static forRoot(url: string): DynamicModule {
    const logger = new Logger('SecretSealing');
    // Read by the factory below, which Nest calls with the options only.
    let settings: DatabaseSettings = DEFAULT_DATABASE_SETTINGS;
    return {
      module: DatabaseModule,
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: async (config: AppConfig) => {
            installSecretSealer(await sealerFor(config, (message) => logger.warn(message)));
            settings = config.database ?? DEFAULT_DATABASE_SETTINGS;
            return { ...buildDataSourceOptions(url, settings), migrationsRun: false, autoLoadEntities: true, retryAttempts: 3, retryDelay: 1000 };
          },
          dataSourceFactory: async (options) => {
            // TypeORM's logger reports each migration applied.
            await migrateUnderLock(url, settings);
            const dataSource = await new DataSource(options!).initialize();
            const report = await resealSecrets(dataSource, secretSealer(), { rotate: false }).catch(async (error: unknown) => {
              await dataSource.destroy();
              throw error;
            });
            const sealed = Object.values(report.resealed).reduce((sum, count) => sum + count, 0);
            if (sealed) logger.log(`sealed ${sealed} secret(s) stored in plain text: ${JSON.stringify(report.resealed)}`);
            return dataSource;
          },
        }),
      ],
      providers: [
        { provide: DatabaseHealth, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new DatabaseHealth(url, config.database ?? DEFAULT_DATABASE_SETTINGS) },
      ],
      exports: [DatabaseHealth],
    };
  }
}
