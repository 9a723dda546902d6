import { DynamicModule, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { installSecretSealer, secretSealer } from '../common/crypto/secret-sealer';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { buildDataSourceOptions } from './data-source-options';
import { resealSecrets } from './sealed-columns';
import { sealerFor } from './secret-sealer-for';

/**
 * The one PostgreSQL DataSource, migrated at start-up (DESIGN.md, Persistence). Before it reads a row, the secret
 * sealer is installed (ATRIUM_SECRET_KEY or `$DATA_DIR/secret.key`); after the migrations, secrets still stored in
 * plain text are sealed (issue 19, item 6).
 */
@Module({})
export class DatabaseModule {
  /** @param url postgres:// URL (from DATABASE_URL or the embedded server) */
  static forRoot(url: string): DynamicModule {
    const logger = new Logger('SecretSealing');
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: async (config: AppConfig) => {
            installSecretSealer(await sealerFor(config, (message) => logger.warn(message)));
            return { ...buildDataSourceOptions(url), autoLoadEntities: true, retryAttempts: 3, retryDelay: 1000 };
          },
          dataSourceFactory: async (options) => {
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
    };
  }
}
