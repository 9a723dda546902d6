import { DynamicModule, LoggerService, Module, Provider, Type } from '@nestjs/common';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import { JobsModule } from '../../src/jobs/jobs.module';
import type { JobsModuleOptions } from '../../src/jobs/jobs.options';

/** A fresh database on the test server (ATRIUM_TEST_DATABASE_URL), dropped by `drop()`. */
export interface TestDatabase {
  url: string;
  /** Runs one SQL statement on the database. */
  query<R extends Record<string, unknown>>(sql: string, values?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
}

/** Creates an empty database for one test. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.ATRIUM_TEST_DATABASE_URL;
  if (!serverUrl) throw new Error('ATRIUM_TEST_DATABASE_URL is not set: run the e2e tests through jest (global-setup).');
  const name = `atrium_jobs_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const parsed = new URL(serverUrl);
  parsed.pathname = `/${name}`;
  const url = parsed.toString();
  return {
    url,
    query: async <R extends Record<string, unknown>>(sql: string, values: unknown[] = []) => {
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql, values)).rows as R[];
      } finally {
        await client.end();
      }
    },
    drop: async () => {
      const cleanup = new Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

/** One line a Nest logger received. */
export interface LogLine {
  level: 'log' | 'error' | 'warn' | 'debug' | 'verbose' | 'fatal';
  message: string;
  context?: string;
}

/** A Nest logger that keeps every line in memory, so tests can read what the runner logged. */
export class CapturingLogger implements LoggerService {
  readonly lines: LogLine[] = [];
  log(message: unknown, ...params: unknown[]) { this.push('log', message, params); }
  error(message: unknown, ...params: unknown[]) { this.push('error', message, params); }
  warn(message: unknown, ...params: unknown[]) { this.push('warn', message, params); }
  debug(message: unknown, ...params: unknown[]) { this.push('debug', message, params); }
  verbose(message: unknown, ...params: unknown[]) { this.push('verbose', message, params); }
  fatal(message: unknown, ...params: unknown[]) { this.push('fatal', message, params); }
  private push(level: LogLine['level'], message: unknown, params: unknown[]) {
    const context = typeof params[params.length - 1] === 'string' ? (params[params.length - 1] as string) : undefined;
    this.lines.push({ level, message: String(message), context });
  }
}

/**
 * Boots a Nest application context with `JobsModule.forRoot(url)` and the given providers/imports; fast polling
 * and maintenance. Resolves after init (workers started).
 */
export async function startJobsApp(
  url: string,
  setup: { providers?: Provider[]; imports?: (Type | DynamicModule)[]; options?: JobsModuleOptions; logger?: LoggerService },
): Promise<INestApplicationContext> {
  @Module({})
  class JobsTestModule {}
  const root: DynamicModule = {
    module: JobsTestModule,
    imports: [JobsModule.forRoot(url, { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1, ...setup.options }), ...(setup.imports ?? [])],
    providers: setup.providers ?? [],
  };
  return NestFactory.createApplicationContext(root, { logger: setup.logger ?? false, abortOnError: false });
}

/**
 * Polls `check` every 50 ms until it returns a truthy value.
 * @throws Error naming `what` after `timeoutMs` (ms)
 */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
