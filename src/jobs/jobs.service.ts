import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleDestroy,
  OnModuleInit,
} from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { Pool } from 'pg';
import PgBoss from 'pg-boss';
import type { EntityManager } from 'typeorm';
import { JobConfigurationError, JobDefinition } from './job-definition';
import { JOB_HANDLER_METADATA, JobHandlerMetadata, ResolvedJobHandlerOptions } from './job-handler.decorator';
import { checkJobHandlers, DeclaredJobs } from './job-registry';
import { JobMetrics } from './job-metrics';
import { currentTraceCarrier, inJobSpan, JOB_TRACE_KEY } from '../common/tracing/tracing';
import { JOBS_OPTIONS, ResolvedJobsOptions } from './jobs.options';
import { settlingSql } from './settling-sql';
import { pgClientOptions } from '../database/database.config';
import { GuardedPool } from '../database/guarded-pg';
import { underSessionLock } from '../database/advisory-lock';

/** Key of the session-level advisory lock under which an instance creates its queues: `'atrium-q'` as 8 ASCII bytes. */
export const QUEUE_CREATION_LOCK_KEY = '7022363516244667761';

/** pg-boss's SQL builders (no typings): the statements that record a job's end, to recognise them. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pgBossPlans = require('pg-boss/src/plans') as { completeJobs(schema: string): string; failJobsById(schema: string): string };

/** Milliseconds during which a repeated pg-boss error (e.g. every poll while the database is down) is logged once. */
const ERROR_LOG_QUIET_MS = 10_000;

/** Options of {@link JobsService.enqueue}. */
export interface EnqueueOptions {
  /**
   * Deduplication key, enforced per the handler's queue policy (`short`: one queued job per key, `stately`: one
   * queued and one running, `singleton`: one running). Refused on a `standard` queue, where pg-boss ignores it.
   */
  singletonKey?: string;
  /** Seconds to wait before the job may start. >= 0; default 0. */
  startAfterSeconds?: number;
  /**
   * Insert the job through this TypeORM EntityManager, e.g. the one `dataSource.transaction(async (manager) => …)`
   * passes, so the job exists only if the caller's transaction commits.
   */
  manager?: EntityManager;
}

/** A `@JobHandler` method found at start-up. */
interface FoundHandler extends JobHandlerMetadata {
  /** `Class.method`, for messages. */
  site: string;
  run(data: object): Promise<unknown>;
}

/**
 * The in-process durable job runner (DESIGN.md, Jobs; Examples: "Jobs are found, not wired by hand"), on pg-boss
 * in its own schema of the app's PostgreSQL. Lifecycle:
 * - module init: finds every `@JobHandler` method and every `JobsModule.forFeature` declaration, refuses to start
 *   on two handlers for one job or a declared job without one, starts pg-boss (creating or migrating its schema)
 *   and creates or updates one queue per handler with the handler's retry/expiry options;
 * - application bootstrap: starts `concurrency` polling workers per handler (unless `runWorkers` is false);
 * - module destroy: stops fetching, waits up to `shutdownTimeoutMs` for running handlers, then pg-boss fails
 *   the rest, so they are retried (by this or another instance); enqueueing still works until
 * - application shutdown: closes the connection pool.
 *
 * Several instances may share one database: pg-boss takes each job with `FOR UPDATE SKIP LOCKED`, so one job runs
 * in one place at a time. A job runs at least once, so handlers are idempotent (see `@JobHandler`).
 */
@Injectable()
export class JobsService implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private readonly handlers = new Map<string, FoundHandler>();
  /** pg-boss worker ids of this instance, by job name (to wake them, see notify). */
  private readonly workerIds = new Map<string, string[]>();
  private pool?: Pool;
  private boss?: PgBoss;
  private workersStarted = false;
  /** Attempts still running, so a stop can let them end before the pool closes (see onModuleDestroy). */
  private readonly running = new Set<Promise<unknown>>();
  /** pg-boss statements in flight (a worker's fetch may return a job after the stop began; see onModuleDestroy). */
  private readonly statements = new Set<Promise<unknown>>();
  /** Error messages logged recently, with when (see logQuietly). */
  private readonly recentErrors = new Map<string, number>();

  constructor(
    @Inject(JOBS_OPTIONS) private readonly options: ResolvedJobsOptions,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly metrics: JobMetrics,
  ) {}

  /**
   * Checks the handlers, starts pg-boss and creates the queues.
   * @throws JobConfigurationError on two handlers for one job, a declared job without handler, or a handler on a
   *   request-scoped or transient provider
   * @throws the database error when PostgreSQL cannot be reached or pg-boss cannot install its schema
   */
  async onModuleInit(): Promise<void> {
    const { handlers, declared } = this.discover();
    checkJobHandlers(handlers, declared);
    for (const handler of handlers) this.handlers.set(handler.name, handler);

    // Our own pool (not pg-boss's) so enqueueing keeps working after the workers stop, until the app closes; sized
    // and timed by DATABASE_JOBS_POOL_MAX and the connect/statement timeouts (issue 20 item 1).
    const { database } = this.options;
    const pool: Pool = new GuardedPool({ connectionString: this.options.databaseUrl, application_name: 'atrium-jobs', max: database.jobsPoolMax, ...pgClientOptions(database) });
    // An idle connection that breaks (database stopped) is dropped by pg-pool; the process goes on.
    pool.on('error', (error) => this.logQuietly(`Job database connection failed: ${error.message}`));
    const settles = new Set([pgBossPlans.completeJobs(this.options.schema), pgBossPlans.failJobsById(this.options.schema)]);
    const boss = new PgBoss({
      db: {
        // pg-boss completes or fails an attempt without awaiting it: those statements must never reject (an unhandled
        // rejection ended the process when the database went away) and are retried while it is unreachable. Once
        // the pool is closed, nothing is sent, like pg-boss's own pool.
        executeSql: settlingSql((text, values) => this.tracked(pool.query(text, values)), {
          isSettle: (text) => settles.has(text),
          retryMs: this.options.settleRetryMs,
          closed: () => pool.ending,
          warn: (message) => this.logger.warn(message),
        }),
      },
      schema: this.options.schema,
      // Cron schedules and the clock-skew monitor are not used.
      schedule: false,
      // Maintenance is needed: it fails expired active jobs into retry (the restart guarantee) and archives.
      supervise: true,
      maintenanceIntervalSeconds: this.options.maintenanceIntervalSeconds,
      pollingIntervalSeconds: this.options.pollingIntervalSeconds,
    });
    // pg-boss emits worker and maintenance failures as 'error'; an EventEmitter without a listener would crash.
    // While the database is down every poll fails: the same message is logged once per ERROR_LOG_QUIET_MS.
    boss.on('error', (error) => this.logQuietly(`pg-boss: ${error.message}`, error.stack));
    try {
      await boss.start();
      // pg-boss's create_queue run by two instances at once can deadlock (seen on a fresh database: each holds the
      // job table's partition lock the other's queue insert waits behind). One instance creates its queues at a time.
      await underSessionLock(this.options.databaseUrl, QUEUE_CREATION_LOCK_KEY, database, 'atrium-jobs-queue-lock', database.migrationStatementTimeoutMs, async () => {
        for (const { name, options } of this.handlers.values()) await this.ensureQueue(boss, name, options);
      });
    } catch (error) {
      await boss.stop({ graceful: false, close: false }).catch(() => undefined);
      await pool.end();
      throw error;
    }
    this.pool = pool;
    this.boss = boss;
    this.metrics.watchQueues([...this.handlers.keys()], this.options.schema, (text) => pool.query(text));
  }

  /**
   * Starts the workers: `concurrency` per handler, each running one job at a time, fetching the next one at once
   * after a job and every `pollingIntervalSeconds` (s) while the queue is empty.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.boss || !this.options.runWorkers) return;
    for (const handler of this.handlers.values()) {
      for (let i = 0; i < handler.options.concurrency; i++) {
        let workerId: string | undefined;
        const ids = this.workerIds.get(handler.name) ?? [];
        this.workerIds.set(handler.name, ids);
        workerId = await this.boss.work<object>(
          handler.name,
          { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: this.options.pollingIntervalSeconds },
          async (jobs) => {
            try {
              for (const job of jobs) await this.runJob(handler, job);
            } finally {
              // pg-boss sleeps a polling interval after every job, even with more queued: fetch again at once.
              if (workerId) this.boss?.notifyWorker(workerId);
            }
          },
        );
        ids.push(workerId);
      }
    }
    this.workersStarted = true;
    const summary = [...this.handlers.values()].map((h) => `${h.name}×${h.options.concurrency}`).join(', ');
    this.logger.log(`Job workers started: ${summary || 'no handlers'}`);
  }

  /**
   * The workers' state, for the readiness probe (issue 15 item 3): `started`; `off` when this instance runs no
   * workers (runWorkers false, knowingly); `stopped` before start-up finished or while shutting down.
   */
  workerState(): 'started' | 'off' | 'stopped' {
    if (!this.options.runWorkers) return 'off';
    return this.workersStarted ? 'started' : 'stopped';
  }

  /**
   * Stops the workers: no new fetches, waits up to `shutdownTimeoutMs` (ms) for running handlers, then pg-boss
   * fails what is still running so it is retried. Other providers are still alive here, so handlers can finish.
   */
  async onModuleDestroy(): Promise<void> {
    if (!this.boss) return;
    if (this.workersStarted) this.logger.log(`Stopping job workers (waiting up to ${this.options.shutdownTimeoutMs} ms for running jobs)`);
    const stopStarted = Date.now();
    await this.boss.stop({ graceful: true, timeout: this.options.shutdownTimeoutMs, wait: true, close: false });
    // pg-boss has failed what outlived the timeout (it is retried), but its handler may still be running, and
    // pg-boss polls in the background until every worker's handler returned. Give them what is left of
    // shutdownTimeoutMs (at least a second), so nothing of this instance keeps running against a closed pool.
    // A fetch in flight when the stop began can still hand a job to its worker: wait for statements too.
    const deadline = stopStarted + Math.max(this.options.shutdownTimeoutMs, 1_000 + (Date.now() - stopStarted));
    while (this.running.size + this.statements.size > 0 && Date.now() < deadline) {
      await Promise.race([
        Promise.allSettled([...this.running, ...this.statements]),
        new Promise((resolve) => setTimeout(resolve, deadline - Date.now()).unref()),
      ]);
      // Let a returned fetch reach its handler (runJob adds it to `running`) before looking again.
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.workersStarted = false;
  }

  /** Remembers `statement` while it runs (see `statements`). */
  private tracked<T>(statement: Promise<T>): Promise<T> {
    this.statements.add(statement);
    const forget = () => this.statements.delete(statement);
    statement.then(forget, forget);
    return statement;
  }

  /**
   * Wakes this instance's idle workers of `job` now instead of at their next poll (up to `pollingIntervalSeconds`
   * later). Call it after the transaction that enqueued with `manager` committed; plain enqueues do it themselves.
   */
  notify(job: JobDefinition<any>): void {
    for (const workerId of this.workerIds.get(job.name) ?? []) this.boss?.notifyWorker(workerId);
  }

  /** Closes the connection pool, after the HTTP server stopped taking requests that might enqueue. */
  async onApplicationShutdown(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    this.boss = undefined;
    await pool?.end();
  }

  /**
   * Stores a job; a worker of any instance sharing the database runs it (DESIGN.md, Jobs).
   * @param job the definition from `defineJob`
   * @param data the payload, a JSON object (stored as jsonb)
   * @param options see {@link EnqueueOptions}
   * @returns the job id (uuid); with a `singletonKey`, null when the queue policy dropped it as a duplicate
   * @throws JobConfigurationError when no provider of this app handles `job`, or a `singletonKey` is given for a
   *   `standard` queue, or `startAfterSeconds` is negative
   * @throws Error when called before module init or after shutdown; the database error if the insert fails
   */
  async enqueue<T extends object>(job: JobDefinition<T>, data: T, options?: EnqueueOptions & { singletonKey?: undefined }): Promise<string>;
  async enqueue<T extends object>(job: JobDefinition<T>, data: T, options?: EnqueueOptions): Promise<string | null>;
  async enqueue<T extends object>(job: JobDefinition<T>, data: T, options: EnqueueOptions = {}): Promise<string | null> {
    const handler = this.handlers.get(job.name);
    if (!handler) {
      throw new JobConfigurationError(`Cannot enqueue job "${job.name}": no provider in this app has a @JobHandler for it.`);
    }
    const { singletonKey, startAfterSeconds, manager } = options;
    if (singletonKey !== undefined && handler.options.policy === 'standard') {
      throw new JobConfigurationError(
        `Cannot enqueue job "${job.name}" with a singletonKey: its queue policy is "standard", which ignores keys (set policy on its @JobHandler).`,
      );
    }
    if (startAfterSeconds !== undefined && !(startAfterSeconds >= 0)) {
      throw new JobConfigurationError(`Cannot enqueue job "${job.name}": startAfterSeconds must be >= 0.`);
    }
    if (!this.boss) throw new Error(`Cannot enqueue job "${job.name}": the job runner is not started (or already shut down).`);
    // The enqueuer's trace goes with the job (issue 15 item 2); nothing is added when tracing is off.
    const carrier = currentTraceCarrier();
    const payload = Object.keys(carrier).length > 0 ? { ...data, [JOB_TRACE_KEY]: carrier } : data;
    const id = await this.boss.send(job.name, payload, {
      singletonKey,
      startAfter: startAfterSeconds,
      // pg-boss runs its INSERT through whatever `db` is given; TypeORM returns the rows of INSERT … RETURNING.
      db: manager ? { executeSql: async (text, values) => ({ rows: await manager.query(text, values) }) } : undefined,
    });
    if (id === null && singletonKey === undefined) throw new Error(`pg-boss did not store job "${job.name}".`);
    if (!manager) this.notify(job);
    this.logger.debug(id ? `Enqueued job ${job.name} ${id}` : `Job ${job.name} with key ${singletonKey} is already queued`);
    return id;
  }

  /** Logs `message` as an error unless the same one was logged in the last ERROR_LOG_QUIET_MS (ms). */
  private logQuietly(message: string, stack?: string): void {
    const now = Date.now();
    for (const [logged, at] of this.recentErrors) if (now - at > ERROR_LOG_QUIET_MS) this.recentErrors.delete(logged);
    if (this.recentErrors.has(message)) return;
    this.recentErrors.set(message, now);
    this.logger.error(message, stack);
  }

  /** Every `@JobHandler` method on singleton providers, and every name declared with `forFeature`. */
  private discover(): { handlers: FoundHandler[]; declared: string[] } {
    const handlers: FoundHandler[] = [];
    const declared: string[] = [];
    const seen = new Set<object>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (wrapper.isAlias || !instance || typeof instance !== 'object' || seen.has(instance)) continue;
      seen.add(instance);
      if (instance instanceof DeclaredJobs) {
        declared.push(...instance.jobs.map((job) => job.name));
        continue;
      }
      const target = instance as Record<string, (data: object) => Promise<unknown>>;
      for (const method of this.scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
        const metadata = this.reflector.get<JobHandlerMetadata | undefined>(JOB_HANDLER_METADATA, target[method]);
        if (!metadata) continue;
        const site = `${instance.constructor.name}.${method}`;
        // A request-scoped or transient provider has no single instance to call outside a request.
        if (!wrapper.isDependencyTreeStatic() || wrapper.isTransient) {
          throw new JobConfigurationError(`${site}: a @JobHandler must be on a singleton-scoped provider.`);
        }
        handlers.push({ ...metadata, site, run: (data) => target[method].call(instance, data) });
      }
    }
    return { handlers, declared };
  }

  /** Creates the queue, or brings an existing one's options in line with the handler (the code wins). */
  private async ensureQueue(boss: PgBoss, name: string, options: ResolvedJobHandlerOptions): Promise<void> {
    const queue: PgBoss.Queue = {
      name,
      policy: options.policy,
      retryLimit: options.retryLimit,
      retryDelay: options.retryDelaySeconds,
      retryBackoff: options.retryBackoff,
      expireInSeconds: options.expireInSeconds,
    };
    await boss.createQueue(name, queue);
    await boss.updateQueue(name, queue);
  }

  /** Runs one attempt of a job, logging failures (the last one as an error) before pg-boss records them. */
  private async runJob(handler: FoundHandler, job: PgBoss.JobWithMetadata<object>): Promise<void> {
    const attempt = job.retryCount + 1;
    const attempts = job.retryLimit + 1;
    const label = `Job ${job.name} ${job.id} (attempt ${attempt} of ${attempts})`;
    const started = Date.now();
    // pg-boss fails an attempt that outlives its expiry without telling the handler; say so in the log.
    const expireInSeconds = Number(job.expireInSeconds);
    const overdue = setTimeout(
      () => this.logger.warn(`${label} is still running after expireInSeconds=${expireInSeconds}; pg-boss fails this attempt`),
      expireInSeconds * 1000,
    );
    overdue.unref();
    try {
      this.logger.debug(`${label} started by ${handler.site}`);
      const { [JOB_TRACE_KEY]: carrier, ...data } = (job.data ?? {}) as Record<string, unknown>;
      const attemptRun = inJobSpan(job.name, carrier, { 'messaging.message.id': job.id, attempt }, () => handler.run(data));
      this.running.add(attemptRun);
      try {
        await attemptRun;
      } finally {
        this.running.delete(attemptRun);
      }
      this.metrics.attemptEnded(job, 'completed', started);
      this.logger.debug(`${label} done in ${Date.now() - started} ms`);
    } catch (error) {
      this.metrics.attemptEnded(job, 'failed', started);
      const err = error instanceof Error ? error : new Error(String(error));
      if (attempt < attempts) {
        const delay = `${job.retryDelay} s${job.retryBackoff ? ' (doubling)' : ''}`;
        this.logger.warn(`${label} failed after ${Date.now() - started} ms, will retry after ${delay}: ${err.message}`);
      } else {
        this.logger.error(`${label} failed for the last time, giving up: ${err.message}`, err.stack);
      }
      throw error;
    } finally {
      clearTimeout(overdue);
    }
  }
}
