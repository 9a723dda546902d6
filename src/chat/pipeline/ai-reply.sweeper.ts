import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { AiReplyStore } from './ai-reply.store';
import { updateReturning } from '../contacts/update-returning';
import { PeriodicSweep, type SweepContext } from '../../jobs/periodic-sweep';

/** An open reply state the sweep took over. */
interface StaleRow {
  tenant_id: string;
  inbound_message_id: string;
  attempts: number;
  reason: string | null;
}

/**
 * The safety net that keeps an AI reply from staying open forever (issue 6, "The inbound pipeline": exactly once
 * under a kill at any point). At start-up and every CHAT_AI_REPLY_SWEEP_INTERVAL_MS, each instance takes over the
 * reply states that are `queued` or `composing` and whose lease (set when queued, renewed by the worker's heartbeat,
 * CHAT_AI_REPLY_STALE_MS long) ran out: their worker was killed, or their job was lost. In one
 * transaction per pass (`FOR UPDATE SKIP LOCKED`, so two instances never take the same row) each is put back to
 * `queued` with a fresh lease and its job enqueued again — or, when it already used CHAT_AI_REPLY_ATTEMPTS runs,
 * ended `failed` with the reason. A duplicate job is harmless: the reply job's claim lets one run work, and the
 * unique AI message per inbound message keeps a late run from sending twice.
 *
 * Why a sweep and not only the queue: the reply state and its job are written in the transaction that stores the
 * inbound message, so a crash can never leave a stored message without its job; but a job whose process was killed
 * stays "active" in pg-boss until its expiry (an hour), and the sweep brings the reply back within
 * CHAT_AI_REPLY_STALE_MS instead.
 */
@Injectable()
export class AiReplySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(AiReplySweeper.name);
  private readonly periodic = new PeriodicSweep('AI reply sweep', (context) => this.sweep(context), this.logger);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: AiReplyStore,
  ) {}

  /** Sweeps once now (replies left by a previous process), then every CHAT_AI_REPLY_SWEEP_INTERVAL_MS. */
  onApplicationBootstrap(): void {
    this.periodic.start(this.config.chatPipeline.sweepIntervalMs);
  }

  /** Stops sweeping and waits for a sweep in progress. */
  async onModuleDestroy(): Promise<void> {
    await this.periodic.stop();
  }

  /**
   * One pass; after a database outage this sweep saw, nothing is taken over until the database has answered for
   * CHAT_AI_REPLY_STALE_MS (leases ran out while their workers waited to renew them; issue 20 item 2).
   * @param context from PeriodicSweep (default: no outage seen)
   * @returns how many reply states were taken over (re-queued or failed)
   */
  async sweep(context: SweepContext = { databaseAnsweringForMs: Infinity }): Promise<number> {
    const { staleMs, attempts: maxAttempts } = this.config.chatPipeline;
    let requeued = 0;
    const rows = await this.dataSource.transaction(async (manager) => {
      // One instance sweeps at a time (issue 20 item 5); the others skip this pass. SKIP LOCKED below already keeps two
      // sweeps off the same row: the lock saves the duplicate scan and makes a pass's counts its own.
      const [{ locked }] = (await manager.query(`SELECT pg_try_advisory_xact_lock(hashtext('atrium:chat-ai-reply-sweep')) AS locked`)) as [{ locked: boolean }];
      if (!locked || !PeriodicSweep.outageGraceOver(context, staleMs)) return [];
      const stale = await updateReturning<StaleRow>(
        manager,
        `UPDATE chat_ai_reply SET status = 'queued', worker_id = NULL, lease_until = now() + $1::int * interval '1 millisecond', updated_at = now()
          WHERE id IN (
            SELECT id FROM chat_ai_reply
             WHERE status IN ('queued', 'composing') AND lease_until < now()
             ORDER BY lease_until LIMIT 500
             FOR UPDATE SKIP LOCKED)
          RETURNING tenant_id, inbound_message_id, attempts, reason`,
        [staleMs],
      );
      for (const row of stale) {
        if (row.attempts >= maxAttempts) {
          const reason =
            `The reply stopped without finishing: no worker reported on it for ${staleMs} ms (the app stopped or was killed, or the queue lost its job), ` +
            `and was given up after CHAT_AI_REPLY_ATTEMPTS=${maxAttempts} attempt${maxAttempts === 1 ? '' : 's'}.${row.reason ? ` Last: ${row.reason}` : ''}`;
          await manager.query(
            `UPDATE chat_ai_reply SET status = 'failed', reason = $3, lease_until = NULL, finished_at = now(), updated_at = now() WHERE tenant_id = $1 AND inbound_message_id = $2`,
            [row.tenant_id, row.inbound_message_id, reason.slice(0, 1000)],
          );
        } else {
          await this.store.enqueueReply(manager, row.tenant_id, row.inbound_message_id);
          requeued++;
        }
      }
      return stale;
    });
    if (requeued > 0) this.store.notifyWorkers();
    if (rows.length > 0) this.logger.warn(`AI reply sweep took over ${rows.length} stale replies (${requeued} re-queued, ${rows.length - requeued} failed)`);
    return rows.length;
  }
}
