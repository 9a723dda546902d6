import { HttpException, Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { JobHandler } from '../../jobs/job-handler.decorator';
import { AiReplyComposer, ModelNotConfiguredError, type ComposedReply } from '../ai-reply/ai-reply-composer.service';
import { ExternalContactEntity } from '../contacts/external-contact.entity';
import { IntentionRecordsService } from '../intent-records/intention-records.service';
import { InterventionRulesService } from '../intervention-rules/intervention-rules.service';
import { ChatMessageEntity } from '../messages/chat-message.entity';
import { AI_REPLY } from './ai-reply.job';
import { AiReplyStore, type PipelineContact } from './ai-reply.store';
import { AiReplyMetrics } from './ai-reply-metrics';
import { ChatAiReplyEntity } from './chat-ai-reply.entity';
import { nextAttempt } from './pipeline.rules';
import { updateReturning } from '../contacts/update-returning';
import { isUuidShaped } from '../../common/ids/uuid-shape';

/** Longest reason kept on a reply state, characters. */
const MAX_REASON_CHARS = 1000;
/** Longest intent name an intent record takes (chat_intention_record.intent_name). */
const MAX_INTENT_CHARS = 100;

/** This worker run no longer holds the reply state (the sweep took it over, or it ended elsewhere): write nothing. */
class LostClaimError extends Error {
  constructor() {
    super('The reply state is held by another worker run.');
  }
}

/** A failure that another attempt cannot fix: the reply ends `failed` at once. */
class FinalFailure extends Error {}

/**
 * The reply job (`chat.ai-reply`, issue 6, "The inbound pipeline"): composes the digital staff's answer to one
 * inbound message with AiReplyComposer, records the detected intent, and either intervenes (an intent-type
 * human-intervention rule matches the intent: AI off, to-do, nothing sent) or writes the AI message and queues its
 * delivery (DELIVER_CHAT_MESSAGE / MessageDelivery) — exactly once per inbound message:
 * - a run first claims the reply state (`queued` → `composing`, or a `composing` row whose lease ran out) with a
 *   fresh worker id and renews the lease every CHAT_AI_REPLY_HEARTBEAT_MS; every later write is fenced on that
 *   worker id, so a run that lost the row (killed and taken over by the sweep) writes nothing;
 * - the AI message insert is guarded by the partial unique index on `in_reply_to_message_id` and its delivery job
 *   is enqueued in the same transaction, only when the row is new: a retry after the row exists only marks the
 *   state `sent`; delivery itself sends a message at most once per claim (`pending` → `sent` is conditional);
 * - a model failure or timeout (CHAT_AI_REPLY_TIMEOUT_MS) releases the claim and re-enqueues the job after
 *   CHAT_AI_REPLY_RETRY_DELAY_MS × 2^(attempt-1), up to CHAT_AI_REPLY_ATTEMPTS attempts; then `failed` with the
 *   reason. (The retries are scheduled here rather than by pg-boss, whose retry options are fixed in the decorator,
 *   so that they follow the configuration.) On shutdown the model wait is abandoned and the job handed back.
 * The queue's own retry is off (`retryLimit` 0): a job whose process died expires, and AiReplySweeper re-queues
 * its reply state once the lease is stale.
 *
 * Poison answers (issue 19 item 2): a model answer over CHAT_AI_REPLY_MAX_CHARS (refused by AiReplyStore when
 * stored, ReplyOverCapError) or malformed tool calls (MalformedModelAnswerError) fail the attempt like a model error:
 * retried, then `failed` with the reason after CHAT_AI_REPLY_ATTEMPTS; nothing over the cap is ever written, so a
 * restart finds nothing that could take it down again. A job payload that names no reply state is dropped with a
 * warning.
 */
@Injectable()
export class AiReplyWorker implements OnModuleDestroy {
  private readonly logger = new Logger(AiReplyWorker.name);
  private readonly stopping = new AbortController();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly composer: AiReplyComposer,
    private readonly intents: IntentionRecordsService,
    private readonly interventionRules: InterventionRulesService,
    private readonly store: AiReplyStore,
    private readonly metrics: AiReplyMetrics,
  ) {}

  /** Abandons model waits so running replies go back to the queue at once instead of holding up shutdown. */
  onModuleDestroy(): void {
    this.stopping.abort(new Error('The app is shutting down.'));
  }

  /**
   * The job. Does nothing when the reply state is final, or held by a live worker run.
   * @throws only on database errors (the queue logs them; the sweep re-queues the state when its lease runs out)
   */
  @JobHandler(AI_REPLY, { concurrency: 4, retryLimit: 0, expireInSeconds: 3600 })
  async reply({ tenantId, inboundMessageId }: { tenantId: string; inboundMessageId: string }): Promise<void> {
    // A payload no reply state can match (a poison job): log it and end the job, never throw on it again.
    if (typeof tenantId !== 'string' || !isUuidShaped(inboundMessageId)) {
      this.logger.warn(`Dropped an AI reply job with an unusable payload: ${JSON.stringify({ tenantId, inboundMessageId }).slice(0, 200)}`);
      return;
    }
    const workerId = randomUUID();
    const state = await this.claim(tenantId, inboundMessageId, workerId);
    if (!state) return;
    const { attempts: maxAttempts, heartbeatMs, staleMs } = this.config.chatPipeline;
    if (state.attempts > maxAttempts) {
      const reason = `Gave up after ${maxAttempts} attempt${maxAttempts === 1 ? '' : 's'} (CHAT_AI_REPLY_ATTEMPTS): interrupted or failed each time.${state.reason ? ` Last: ${state.reason}` : ''}`;
      await this.finish(tenantId, inboundMessageId, workerId, 'failed', reason).catch((error: unknown) => (error instanceof LostClaimError ? undefined : Promise.reject(error)));
      return;
    }
    const heartbeat = setInterval(() => {
      this.dataSource
        .query(`UPDATE chat_ai_reply SET lease_until = now() + $4::int * interval '1 millisecond' WHERE tenant_id = $1 AND inbound_message_id = $2 AND worker_id = $3 AND status = 'composing'`, [tenantId, inboundMessageId, workerId, staleMs])
        .catch(() => undefined);
    }, heartbeatMs);
    heartbeat.unref();
    try {
      await this.work(state, workerId);
    } catch (error) {
      if (error instanceof LostClaimError) return;
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, MAX_REASON_CHARS);
      if (this.stopping.signal.aborted) {
        await this.handBack(state, workerId, 'Interrupted by shutdown; it resumes when a worker picks it up again.', 0, true);
        return;
      }
      // A refusal of ours (4xx: no model configured, the digital staff or contact deleted) will not change on retry.
      const retryable = !(error instanceof FinalFailure || error instanceof ModelNotConfiguredError || (error instanceof HttpException && error.getStatus() < 500));
      const next = nextAttempt(state.attempts, { maxAttempts, baseDelayMs: this.config.chatPipeline.retryDelayMs, retryable });
      if (next.kind === 'retry') {
        this.logger.warn(`AI reply to message ${inboundMessageId} (tenant ${tenantId}): attempt ${state.attempts} of ${maxAttempts} failed, retrying in ${next.delayMs} ms: ${reason}`);
        await this.handBack(state, workerId, reason, next.delayMs, false);
      } else {
        this.logger.warn(`AI reply to message ${inboundMessageId} (tenant ${tenantId}) failed after ${state.attempts} attempt(s): ${reason}`);
        await this.finish(tenantId, inboundMessageId, workerId, 'failed', retryable ? `Failed after ${state.attempts} attempt${state.attempts === 1 ? '' : 's'} (CHAT_AI_REPLY_ATTEMPTS=${maxAttempts}): ${reason}` : reason);
      }
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Compose, then intervene or write + deliver. */
  private async work(state: ChatAiReplyEntity, workerId: string): Promise<void> {
    const { tenantId, inboundMessageId } = state;
    const inbound = await this.dataSource.getRepository(ChatMessageEntity).findOneBy({ tenantId, id: inboundMessageId });
    const contact = await this.dataSource.getRepository(ExternalContactEntity).findOneBy({ tenantId, id: state.contactId });
    if (!inbound || !contact) {
      await this.finish(tenantId, inboundMessageId, workerId, 'skipped', 'The message or its contact no longer exists.');
      return;
    }
    const ref: PipelineContact = { id: contact.id, tenantId, corpId: contact.corpId, workChatUserId: contact.workChatUserId };
    // A retry after the reply was written (the previous run died before marking it): only record it.
    const existing = await this.store.existingReply(this.dataSource.manager, tenantId, inboundMessageId);
    if (existing) {
      await this.finish(tenantId, inboundMessageId, workerId, 'sent', null, existing);
      return;
    }
    if (state.trigger === 'inbound' && !contact.aiEnabled) {
      await this.finish(tenantId, inboundMessageId, workerId, 'skipped', 'AI replies were switched off for this contact before the reply was composed.');
      return;
    }
    if (!state.digitalStaffId) throw new FinalFailure('No digital staff to reply as.');

    const signal = AbortSignal.any([this.stopping.signal, AbortSignal.timeout(this.config.chatPipeline.timeoutMs)]);
    let composed: ComposedReply;
    try {
      composed = await this.composer.compose({ tenantId, contactId: contact.id, digitalStaffId: state.digitalStaffId, signal });
    } catch (error) {
      if (signal.aborted && !this.stopping.signal.aborted) throw new Error(`The reply was not composed within CHAT_AI_REPLY_TIMEOUT_MS=${this.config.chatPipeline.timeoutMs} ms.`);
      throw error;
    }
    await this.assertHeld(this.dataSource.manager, state, workerId);

    const intent = composed.detectedIntent?.name?.trim() ? composed.detectedIntent : null;
    if (intent) {
      await this.intents.recordDetected(tenantId, { contactId: contact.id, intentName: intent.name.trim().slice(0, MAX_INTENT_CHARS), confidence: intent.confidence, messageId: inboundMessageId });
      const decision = await this.interventionRules.matching(tenantId, { text: inbound.content ?? '', digitalStaffId: state.digitalStaffId }, intent.name.trim());
      const matches = decision.matches.filter((match) => match.matchType === 'intent');
      if (matches.length > 0) {
        await this.dataSource.transaction(async (manager) => {
          await this.assertHeld(manager, state, workerId, true);
          const reason = await this.store.intervene(manager, { contact: ref, digitalStaffId: state.digitalStaffId, inboundMessageId, matches });
          await this.finish(tenantId, inboundMessageId, workerId, 'intervened', reason, null, manager);
        });
        return;
      }
    }
    if (!composed.text.trim()) throw new FinalFailure('The model answered with an empty text; nothing was sent.');
    await this.dataSource.transaction(async (manager) => {
      await this.assertHeld(manager, state, workerId, true);
      const sent = await this.store.insertAiMessage(manager, { contact: ref, inReplyToMessageId: inboundMessageId, content: composed.text, originalAiContent: composed.originalAiContent });
      await this.finish(tenantId, inboundMessageId, workerId, 'sent', null, sent.id, manager);
    });
    this.store.notifyWorkers();
  }

  /**
   * Takes the reply state for this run: a `queued` row, or a `composing` row whose lease ran out; counts the attempt.
   * @returns the claimed row, or null when there is nothing to do
   */
  private async claim(tenantId: string, inboundMessageId: string, workerId: string): Promise<ChatAiReplyEntity | null> {
    const [row] = await updateReturning<{ id: string }>(
      this.dataSource.manager,
      `UPDATE chat_ai_reply SET status = 'composing', worker_id = $3, attempts = attempts + 1, lease_until = now() + $4::int * interval '1 millisecond', updated_at = now()
        WHERE tenant_id = $1 AND inbound_message_id = $2 AND (status = 'queued' OR (status = 'composing' AND lease_until < now()))
        RETURNING id`,
      [tenantId, inboundMessageId, workerId, this.config.chatPipeline.staleMs],
    );
    if (!row) return null;
    return this.dataSource.getRepository(ChatAiReplyEntity).findOneByOrFail({ tenantId, id: row.id });
  }

  /** @throws LostClaimError unless this run still holds the row (locked until commit with `lock`). */
  private async assertHeld(manager: EntityManager, state: ChatAiReplyEntity, workerId: string, lock = false): Promise<void> {
    const rows = (await manager.query(
      `SELECT id FROM chat_ai_reply WHERE tenant_id = $1 AND id = $2 AND worker_id = $3 AND status = 'composing'${lock ? ' FOR UPDATE' : ''}`,
      [state.tenantId, state.id, workerId],
    )) as unknown[];
    if (rows.length === 0) throw new LostClaimError();
  }

  /** Ends the reply state (fenced on this run's claim). */
  private async finish(tenantId: string, inboundMessageId: string, workerId: string, status: 'sent' | 'intervened' | 'skipped' | 'failed', reason: string | null, replyMessageId: string | null = null, manager: EntityManager = this.dataSource.manager): Promise<void> {
    const rows = await updateReturning<{ id: string; age_seconds: number }>(
      manager,
      `UPDATE chat_ai_reply SET status = $4, reason = $5, reply_message_id = $6, worker_id = NULL, lease_until = NULL, finished_at = now(), updated_at = now()
        WHERE tenant_id = $1 AND inbound_message_id = $2 AND worker_id = $3 AND status = 'composing'
        RETURNING id, EXTRACT(EPOCH FROM clock_timestamp() - created_at)::float8 AS age_seconds`,
      [tenantId, inboundMessageId, workerId, status, reason?.slice(0, MAX_REASON_CHARS) ?? null, replyMessageId],
    );
    if (rows.length === 0) throw new LostClaimError();
    this.metrics.finished(status, rows[0].age_seconds);
  }

  /**
   * Releases the claim and queues the job again after `delayMs` (one transaction). A shutdown interruption does not
   * count as an attempt.
   */
  private async handBack(state: ChatAiReplyEntity, workerId: string, reason: string, delayMs: number, uncount: boolean): Promise<void> {
    await this.dataSource
      .transaction(async (manager) => {
        const rows = await updateReturning<{ id: string }>(
          manager,
          `UPDATE chat_ai_reply SET status = 'queued', worker_id = NULL, reason = $4, attempts = attempts - $5::int,
                  lease_until = now() + ($6::int + $7::int) * interval '1 millisecond', updated_at = now()
            WHERE tenant_id = $1 AND inbound_message_id = $2 AND worker_id = $3 AND status = 'composing' RETURNING id`,
          [state.tenantId, state.inboundMessageId, workerId, reason.slice(0, MAX_REASON_CHARS), uncount ? 1 : 0, Math.round(delayMs), this.config.chatPipeline.staleMs],
        );
        if (rows.length > 0) await this.store.enqueueReply(manager, state.tenantId, state.inboundMessageId, delayMs);
      })
      .catch((error: Error) => this.logger.warn(`Could not hand back the AI reply to message ${state.inboundMessageId}: ${error.message} (the sweep re-queues it)`));
    this.store.notifyWorkers();
  }
}
