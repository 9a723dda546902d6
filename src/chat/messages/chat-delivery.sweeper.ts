import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { JobsService } from '../../jobs/jobs.service';
import { PeriodicSweep, type SweepContext } from '../../jobs/periodic-sweep';
import { updateReturning } from '../contacts/update-returning';
import { DELIVER_GROUP_ROOM_MESSAGE } from '../mcp/group-room-messages.job';
import { DELIVER_CHAT_MESSAGE } from './message-delivery.job';
import { DELIVERY_MAX_ATTEMPTS } from './message-delivery.rules';

/** Most messages one pass takes over (the rest wait for the next pass). */
const MAX_PER_PASS = 500;
/** The `contact_type` of group-room messages (GROUP_ROOM_CONTACT_TYPE; delivered by DELIVER_GROUP_ROOM_MESSAGE). */
const GROUP_ROOM_CONTACT_TYPE = 'group';

/** A message the sweep took over. */
interface StaleDelivery {
  tenant_id: string;
  id: string;
  contact_type: string | null;
  delivery_attempts: number;
}

/**
 * The delivery sweep (issue 20 item 2: no work is stranded): at start-up and every CHAT_DELIVERY_SWEEP_INTERVAL_MS it
 * takes over `pending` outbound messages whose delivery lease ran out — the attempt holding them died with its
 * process or froze (attemptDelivery renews the lease while it runs) — and hands each to the queue again: single-chat
 * messages to DELIVER_CHAT_MESSAGE, group-room messages to DELIVER_GROUP_ROOM_MESSAGE; one that already used
 * DELIVERY_MAX_ATTEMPTS attempts ends `failed` with the reason. Without it such a message waited for the queue's
 * 5-minute job expiry. One instance sweeps at a time (transaction-scoped advisory lock), rows are locked
 * `FOR UPDATE SKIP LOCKED`, and after a database outage this sweep saw nothing is taken over until the database has
 * answered for one lease (PeriodicSweep.outageGraceOver): the attempts in flight still hold their results.
 */
@Injectable()
export class ChatDeliverySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ChatDeliverySweeper.name);
  private readonly periodic = new PeriodicSweep('Chat delivery sweep', (context) => this.sweep(context), this.logger);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: JobsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Sweeps once now (messages left by a killed process), then every CHAT_DELIVERY_SWEEP_INTERVAL_MS. */
  onApplicationBootstrap(): void {
    this.periodic.start(this.config.chatDelivery.sweepIntervalMs);
  }

  /** Stops sweeping and waits for a sweep in progress. */
  async onModuleDestroy(): Promise<void> {
    await this.periodic.stop();
  }

  /**
   * One pass.
   * @param context from PeriodicSweep (default: no outage seen)
   * @returns how many messages were taken over (re-queued or failed)
   * @throws the database error (logged by PeriodicSweep; the next pass tries again)
   */
  async sweep(context: SweepContext = { databaseAnsweringForMs: Infinity }): Promise<number> {
    const { leaseMs } = this.config.chatDelivery;
    let requeued = 0;
    const rows = await this.dataSource.transaction(async (manager) => {
      const [{ locked }] = (await manager.query(`SELECT pg_try_advisory_xact_lock(hashtext('atrium:chat-delivery-sweep')) AS locked`)) as [{ locked: boolean }];
      if (!locked || !PeriodicSweep.outageGraceOver(context, leaseMs)) return [];
      const stale = await updateReturning<StaleDelivery>(
        manager,
        `UPDATE chat_message SET delivery_lease_until = NULL
          WHERE id IN (
            SELECT id FROM chat_message
             WHERE delivery_lease_until < now() AND status = 'pending'
             ORDER BY delivery_lease_until LIMIT $1
             FOR UPDATE SKIP LOCKED)
          RETURNING tenant_id, id, contact_type, delivery_attempts`,
        [MAX_PER_PASS],
      );
      for (const row of stale) {
        if (row.delivery_attempts >= DELIVERY_MAX_ATTEMPTS) {
          const reason = `The delivery stopped without finishing: its attempt held it for CHAT_DELIVERY_LEASE_MS=${leaseMs} ms without reporting (the app stopped or was killed mid-send), and DELIVERY_MAX_ATTEMPTS=${DELIVERY_MAX_ATTEMPTS} attempts were used.`;
          await manager.query(`UPDATE chat_message SET status = 'failed', failure_reason = $3 WHERE tenant_id = $1 AND id = $2 AND status = 'pending'`, [row.tenant_id, row.id, reason]);
        } else {
          const job = row.contact_type === GROUP_ROOM_CONTACT_TYPE ? DELIVER_GROUP_ROOM_MESSAGE : DELIVER_CHAT_MESSAGE;
          await this.jobs.enqueue(job, { tenantId: row.tenant_id, messageId: row.id }, { manager });
          requeued++;
        }
      }
      return stale;
    });
    if (requeued > 0) {
      this.jobs.notify(DELIVER_CHAT_MESSAGE);
      this.jobs.notify(DELIVER_GROUP_ROOM_MESSAGE);
    }
    if (rows.length > 0) this.logger.warn(`Chat delivery sweep took over ${rows.length} message(s) whose delivery lease ran out (${requeued} re-queued, ${rows.length - requeued} failed)`);
    return rows.length;
  }
}
