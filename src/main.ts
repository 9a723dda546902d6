import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { join } from 'node:path';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { createRootLogger, PinoNestLogger } from './common/logging/logger';
import { loadConfig } from './app.config';
import { ConfigurationError } from './config/app-config';
import { startEmbeddedPostgres } from './database/embedded-postgres';
import { describeThrown } from './common/errors/describe-thrown';
import cluster from 'node:cluster';
import { runClusterPrimary } from './common/cluster/cluster-primary';

/**
 * Starts Atrium: validates the environment, starts embedded PostgreSQL when DATABASE_URL is unset, builds the
 * app (migrations run on connect) and listens. SIGTERM/SIGINT close the server after in-flight requests finish
 * (at most SHUTDOWN_GRACE_MS), then stop the embedded database.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigurationError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const logger = createRootLogger(config.logLevel);
  // ATRIUM_WORKERS > 1: this process only supervises; forks of this script serve (issue 20 item 7, cluster-primary.ts).
  if (config.cluster.workers > 1 && cluster.isPrimary) return runClusterPrimary(config, logger);
  const embedded = config.databaseUrl
    ? undefined
    : await startEmbeddedPostgres({
        dataDir: join(config.dataDir, 'postgres'),
        port: config.embeddedPostgresPort,
        callerHandlesSignals: true,
        log: (line) => logger.debug({ context: 'EmbeddedPostgres' }, line),
      });
  if (embedded) logger.info({ context: 'EmbeddedPostgres', port: config.embeddedPostgresPort }, 'embedded PostgreSQL started');
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, config.databaseUrl ?? embedded!.url), {
    logger: new PinoNestLogger(logger),
  });
  configureApp(app, config, logger);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown grace period over; exiting');
      process.exit(1);
    }, config.shutdownGraceMs);
    force.unref();
    await app.close();
    await embedded?.stop();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  await app.listen(config.port, config.host);
  logger.info({ url: `http://localhost:${config.port}`, docs: `http://localhost:${config.port}/docs` }, 'Atrium is listening');
}

// Whatever was thrown (embedded-postgres rejects with no reason at all), the message names the real cause.
void main().catch((error: unknown) => {
  process.stderr.write(`Atrium failed to start: ${describeThrown(error)}\n`);
  process.exit(1);
});
