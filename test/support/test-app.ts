import type { NestExpressApplication } from '@nestjs/platform-express';
import { NestFactory } from '@nestjs/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { AppModule } from '../../src/app.module';
import { configureApp } from '../../src/app.setup';
import { createRootLogger, PinoNestLogger } from '../../src/common/logging/logger';
import { loadConfig } from '../../src/app.config';
import { AppConfig } from '../../src/config/app-config';
import { freePort } from './free-port';
import { installResponseRecorder, loadServedDocument } from './response-contract';
import { createSuiteDatabase, dropDatabase, withDatabase } from './test-database';

/** A running Atrium on 127.0.0.1 with its own fresh database and data folder. */
export interface TestApp {
  app: NestExpressApplication;
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  config: AppConfig;
  dataDir: string;
  /** Name of the app's database (pass it as `options.database` to start another instance on it). */
  database: string;
  close(): Promise<void>;
}

export const TEST_REGISTRATION_KEY = 'test-registration-key-0123456789';
export const TEST_OWNER_TOKEN = 'test-owner-token-0123456789abcdefghij';
/** ATRIUM_SECRET_KEY of test apps: one key for every start, so a restart on the same database (new DATA_DIR) opens its sealed secrets. */
export const TEST_SECRET_KEY = '7465737420736563726574206b6579202d2d206e6f7420666f722070726f6421';

/**
 * Boots the real AppModule over real HTTP against a new database (a copy of the run's migrated template on the server
 * of ATRIUM_TEST_DATABASE_URL, dropped on close), with data folders in a temp directory.
 * @param env extra environment variables (strings, as the process would see them)
 * @param options.logLines collects the app's warning and error log lines (JSON) instead of discarding them
 * @param options.database use this existing database (a second instance, or a restart) instead of a new one
 * @param options.dropDatabaseOnClose default: drop only a database this call created
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: { logLines?: string[]; database?: string; dropDatabaseOnClose?: boolean } = {},
): Promise<TestApp> {
  const serverUrl = process.env.ATRIUM_TEST_DATABASE_URL;
  if (!serverUrl) throw new Error('ATRIUM_TEST_DATABASE_URL is not set: run the e2e tests through jest (global-setup).');
  const ownsDatabase = !options.database;
  const database = options.database ?? (await createSuiteDatabase('atrium_e2e')).name;

  const dataDir = mkdtempSync(join(tmpdir(), 'atrium-e2e-'));
  // A suite that must know the URL before the start (public URLs in its configuration) picks the port itself.
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'silent',
    DEPLOY_REGISTRATION_KEY: TEST_REGISTRATION_KEY,
    DEPLOY_OWNER_TOKEN: TEST_OWNER_TOKEN,
    ATRIUM_SECRET_KEY: TEST_SECRET_KEY,
    DEPLOY_PUBLIC_URL: `http://127.0.0.1:${port}`,
    // Test peers (model servers) run on 127.0.0.1; the default (false) is shown by test/common/outbound.e2e-spec.ts.
    EVAL_MODEL_ALLOW_PRIVATE_NETWORKS: 'true',
    ...env,
  });
  // With `logLines`, warnings and errors are collected there (tests that assert on what is logged).
  const logger = options.logLines
    ? createRootLogger('warn', new Writable({ write: (chunk, _encoding, done) => { options.logLines!.push(String(chunk)); done(); } }))
    : createRootLogger(config.logLevel);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, withDatabase(serverUrl, database)), {
    logger: new PinoNestLogger(logger),
    abortOnError: false, // a failing start throws here instead of exiting the Jest worker
  });
  // Every response is checked against the served OpenAPI document after the suite (response-contract.ts).
  installResponseRecorder(app);
  configureApp(app, config, logger);
  await app.listen(port, '127.0.0.1');
  await loadServedDocument(`http://127.0.0.1:${port}`);
  return {
    app,
    baseUrl: `http://127.0.0.1:${port}`,
    config,
    dataDir,
    database,
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (!(options.dropDatabaseOnClose ?? ownsDatabase)) return;
      await dropDatabase(serverUrl, database);
    },
  };
}
