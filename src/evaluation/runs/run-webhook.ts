import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { outboundCause, type OutboundClient } from '../../common/outbound/outbound-client';
import { OutboundHttp } from '../../common/outbound/outbound.service';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { defineJob } from '../../jobs/job-definition';
import { JobHandler } from '../../jobs/job-handler.decorator';
import { JobsService } from '../../jobs/jobs.service';
import type { RunSummary } from '../rules/run-summary';
import { RunEntity } from './run.entity';
import { returnedRows } from './run-lease';
import { PeriodicSweep, type SweepContext } from '../../jobs/periodic-sweep';
import { retryWhileDatabaseUnavailable } from '../../database/retry-unavailable';

/** Sends the run-completion webhook of one finished run. */
export const RUN_COMPLETED_WEBHOOK = defineJob<{ runId: string }>('evaluation.run-completed-webhook');

/** Webhook request timeout (evaluation-platform.md, Limits: 10 seconds). */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** The webhook body (evaluation-platform.md, Events, item 4). */
export interface RunCompletedPayload {
  event: 'run_completed';
  run_id: string;
  status: string;
  summary: RunSummary | Record<string, never>;
  report_url: string;
}

/** Builds the webhook body of a finished run. */
export function runCompletedPayload(run: Pick<RunEntity, 'id' | 'status' | 'summary'>): RunCompletedPayload {
  return { event: 'run_completed', run_id: run.id, status: run.status, summary: run.summary ?? {}, report_url: `/api/reports/${run.id}` };
}

/** What a pass of the webhook sweep took over. */
interface StaleWebhook {
  run_id: string;
  attempts: number;
}

/** Attempts of one webhook before the sweep gives it up (each one interrupted by its process dying mid-call). */
export const WEBHOOK_MAX_ATTEMPTS = 3;
/** How long (ms) the `delivered` mark of an answered webhook is retried while the database is unavailable. */
const MARK_RETRY_DEADLINE_MS = 300_000;

/**
 * Claims the run's webhook for one attempt: a row not yet delivered whose lease is free or ran out. $1 run id, $2 lease
 * ms. Returns the attempt number when claimed.
 */
const CLAIM_WEBHOOK_SQL = `
  UPDATE eval_run_webhook SET attempts = attempts + 1, lease_until = now() + $2::int * interval '1 millisecond'
   WHERE run_id = $1 AND delivered_at IS NULL AND (lease_until IS NULL OR lease_until < now())
  RETURNING attempts`;

/**
 * The run-completion webhook (evaluation-platform.md, Events): when EVAL_WEBHOOK_URL is set, every run that ends
 * completed or failed is POSTed as JSON, with `X-Webhook-Secret` only when EVAL_WEBHOOK_SECRET is set, 10 s
 * timeout. A failure is logged as a warning and never affects the run; no retry (the spec describes none).
 * The call goes through the webhook's outbound client (issue 19 item 1): EVAL_WEBHOOK_ALLOW_PRIVATE_NETWORKS, no
 * redirects, the receiver's reply read under EVAL_WEBHOOK_MAX_RESPONSE_BYTES (past it: aborted and logged).
 *
 * Sent once, never stranded (issue 20 item 2): the run's ending writes an `eval_run_webhook` row with the job; an
 * attempt claims the row with a lease (EVAL_WEBHOOK_LEASE_MS) and marks it delivered once the receiver answered or
 * could not be reached (retried while the database is away), so a second job for the run sends nothing. A row whose
 * attempt died with its process (lease ran out, not delivered) is handed to the queue again by the webhook sweep
 * ({@link RunWebhookSweeper}); the receiver then gets the webhook once more (it can tell by `run_id`), at most
 * WEBHOOK_MAX_ATTEMPTS times in all.
 */
@Injectable()
export class RunWebhook {
  private readonly logger = new Logger(RunWebhook.name);
  private readonly outbound: OutboundClient;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: JobsService,
    outboundHttp: OutboundHttp,
  ) {
    this.outbound = outboundHttp.client(config.evaluationOutbound.webhook);
  }

  /** Schedules the webhook of `runId` in the caller's transaction (nothing when no URL is configured). */
  async schedule(runId: string, manager: EntityManager): Promise<void> {
    if (!this.config.evaluation.webhookUrl) return;
    await manager.query(`INSERT INTO eval_run_webhook (run_id) VALUES ($1) ON CONFLICT (run_id) DO NOTHING`, [runId]);
    await this.jobs.enqueue(RUN_COMPLETED_WEBHOOK, { runId }, { manager });
  }

  @JobHandler(RUN_COMPLETED_WEBHOOK, { concurrency: 4, retryLimit: 0, expireInSeconds: 60 })
  async send({ runId }: { runId: string }): Promise<void> {
    const url = this.config.evaluation.webhookUrl;
    const run = await this.dataSource.getRepository(RunEntity).findOne({ where: { id: runId }, select: { id: true, status: true, summary: true } });
    if (!url || !run) return;
    // A job queued before the delivery rows existed has none: it gets one now.
    await this.dataSource.query(`INSERT INTO eval_run_webhook (run_id) VALUES ($1) ON CONFLICT (run_id) DO NOTHING`, [runId]);
    const claimed = returnedRows<{ attempts: number }>(await this.dataSource.query(CLAIM_WEBHOOK_SQL, [runId, this.config.runWebhook.leaseMs]));
    if (claimed.length === 0) return; // delivered already, or an attempt of another job holds it
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (this.config.evaluation.webhookSecret) headers['X-Webhook-Secret'] = this.config.evaluation.webhookSecret;
    let outcome: string;
    try {
      const response = await this.outbound.request({ url, method: 'POST', headers, body: JSON.stringify(runCompletedPayload(run)), timeoutMs: WEBHOOK_TIMEOUT_MS, maxRedirects: 0, returnRedirects: true });
      outcome = `HTTP ${response.status}`;
      if (response.status < 200 || response.status >= 300) this.logger.warn(`Run-completion webhook for run ${runId} answered HTTP ${response.status}.`);
    } catch (error) {
      // Outbound errors name the URL without its query; anything else only by its message.
      outcome = (outboundCause(error) ?? (error as Error)).message;
      this.logger.warn(`Run-completion webhook for run ${runId} failed: ${outcome}`);
    }
    // Answered (or unreachable: no retry): never sent again, also when the database is away for a while now.
    await retryWhileDatabaseUnavailable(
      () => this.dataSource.query(`UPDATE eval_run_webhook SET delivered_at = now(), lease_until = NULL, outcome = $2 WHERE run_id = $1`, [runId, outcome.slice(0, 1000)]),
      { deadlineMs: MARK_RETRY_DEADLINE_MS },
    );
  }
}

/**
 * The webhook sweep (issue 20 item 2): at start-up and every EVAL_WEBHOOK_SWEEP_INTERVAL_MS it takes over webhooks
 * not delivered whose attempt's lease ran out (the process died mid-call, or before recording the answer) and
 * enqueues their job again; one that already had WEBHOOK_MAX_ATTEMPTS attempts is marked given up. One instance at a
 * time (advisory lock), rows locked `FOR UPDATE SKIP LOCKED`, and nothing is taken over until the database has
 * answered for one lease after an outage this sweep saw (PeriodicSweep.outageGraceOver).
 */
@Injectable()
export class RunWebhookSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(RunWebhookSweeper.name);
  private readonly periodic = new PeriodicSweep('Webhook sweep', (context) => this.sweep(context), this.logger);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: JobsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Sweeps once now, then every EVAL_WEBHOOK_SWEEP_INTERVAL_MS (only when EVAL_WEBHOOK_URL is set). */
  onApplicationBootstrap(): void {
    if (this.config.evaluation.webhookUrl) this.periodic.start(this.config.runWebhook.sweepIntervalMs);
  }

  /** Stops sweeping and waits for a sweep in progress. */
  async onModuleDestroy(): Promise<void> {
    await this.periodic.stop();
  }

  /**
   * One pass.
   * @param context from PeriodicSweep (default: no outage seen)
   * @returns the run ids whose webhook was re-queued or given up
   * @throws the database error (logged by PeriodicSweep; the next pass tries again)
   */
  async sweep(context: SweepContext = { databaseAnsweringForMs: Infinity }): Promise<string[]> {
    const { leaseMs } = this.config.runWebhook;
    let requeued = 0;
    const rows = await this.dataSource.transaction(async (manager) => {
      const [{ locked }] = (await manager.query(`SELECT pg_try_advisory_xact_lock(hashtext('atrium:eval-run-webhook-sweep')) AS locked`)) as [{ locked: boolean }];
      if (!locked || !PeriodicSweep.outageGraceOver(context, leaseMs)) return [];
      const stale = returnedRows<StaleWebhook>(
        await manager.query(
          `UPDATE eval_run_webhook SET lease_until = NULL
            WHERE run_id IN (
              SELECT run_id FROM eval_run_webhook
               WHERE delivered_at IS NULL AND lease_until < now()
               ORDER BY lease_until LIMIT 200
               FOR UPDATE SKIP LOCKED)
            RETURNING run_id, attempts`,
        ),
      );
      for (const row of stale) {
        if (row.attempts >= WEBHOOK_MAX_ATTEMPTS) {
          await manager.query(`UPDATE eval_run_webhook SET delivered_at = now(), outcome = $2 WHERE run_id = $1`, [
            row.run_id,
            `given up: ${row.attempts} attempts stopped without recording an answer (EVAL_WEBHOOK_LEASE_MS=${leaseMs})`,
          ]);
        } else {
          await this.jobs.enqueue(RUN_COMPLETED_WEBHOOK, { runId: row.run_id }, { manager });
          requeued++;
        }
      }
      return stale;
    });
    if (requeued > 0) this.jobs.notify(RUN_COMPLETED_WEBHOOK);
    if (rows.length > 0) this.logger.warn(`Webhook sweep took over ${rows.length} webhook(s) whose attempt stopped (${requeued} re-queued)`);
    return rows.map((row) => row.run_id);
  }
}
