import { Inject, Injectable, Logger } from '@nestjs/common';
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

/**
 * The run-completion webhook (evaluation-platform.md, Events): when EVAL_WEBHOOK_URL is set, every run that ends
 * completed or failed is POSTed as JSON, with `X-Webhook-Secret` only when EVAL_WEBHOOK_SECRET is set, 10 s
 * timeout. A failure is logged as a warning and never affects the run; no retry (the spec describes none).
 * The call goes through the webhook's outbound client (issue 19 item 1): EVAL_WEBHOOK_ALLOW_PRIVATE_NETWORKS, no
 * redirects, the receiver's reply read under EVAL_WEBHOOK_MAX_RESPONSE_BYTES (past it: aborted and logged).
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
    if (this.config.evaluation.webhookUrl) await this.jobs.enqueue(RUN_COMPLETED_WEBHOOK, { runId }, { manager });
  }

  @JobHandler(RUN_COMPLETED_WEBHOOK, { concurrency: 4, retryLimit: 0, expireInSeconds: 60 })
  async send({ runId }: { runId: string }): Promise<void> {
    const url = this.config.evaluation.webhookUrl;
    const run = await this.dataSource.getRepository(RunEntity).findOne({ where: { id: runId }, select: { id: true, status: true, summary: true } });
    if (!url || !run) return;
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (this.config.evaluation.webhookSecret) headers['X-Webhook-Secret'] = this.config.evaluation.webhookSecret;
    try {
      const response = await this.outbound.request({ url, method: 'POST', headers, body: JSON.stringify(runCompletedPayload(run)), timeoutMs: WEBHOOK_TIMEOUT_MS, maxRedirects: 0, returnRedirects: true });
      if (response.status < 200 || response.status >= 300) this.logger.warn(`Run-completion webhook for run ${runId} answered HTTP ${response.status}.`);
    } catch (error) {
      // Outbound errors name the URL without its query; anything else only by its message.
      this.logger.warn(`Run-completion webhook for run ${runId} failed: ${(outboundCause(error) ?? (error as Error)).message}`);
    }
  }
}
