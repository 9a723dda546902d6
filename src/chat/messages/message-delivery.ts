import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { buffer } from 'node:stream/consumers';
import { DataSource, type EntityManager } from 'typeorm';
import { BLOB_STORAGE, type BlobStorage } from '../../common/storage/storage.port';
import { JobHandler } from '../../jobs/job-handler.decorator';
import { corpContext } from '../contacts/corp-lookup';
import { ExternalContactEntity } from '../contacts/external-contact.entity';
import { updateReturning } from '../contacts/update-returning';
import { WorkChatCorpEntity } from '../corps/work-chat-corp.entity';
import { CHAT_PLATFORM, type ChatPlatform, type OutboundMessage } from '../platform/chat-platform.port';
import { ChatPlatformError } from '../platform/chat-platform.error';
import { ChatMessageEntity } from './chat-message.entity';
import { DELIVER_CHAT_MESSAGE } from './message-delivery.job';
import { DELIVERY_MAX_ATTEMPTS, deliveryOutcome } from './message-delivery.rules';
import { classifyDatabaseError } from '../../common/http/database-problem';
import { retryWhileDatabaseUnavailable } from '../../database/retry-unavailable';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';

/** Longest failure reason kept on a message, characters. */
const MAX_REASON_CHARS = 1000;

/** A delivery that cannot succeed whatever the retries (the contact, room or corp is gone or disabled). */
export class UndeliverableError extends Error {}

/**
 * How long (ms) a sent message's `sent` write is retried while the database is unavailable: under the delivery jobs'
 * 300 s expiry, so the queue never retries (and sends again) while this attempt still waits to record its result.
 */
const SETTLE_RETRY_DEADLINE_MS = 240_000;

/** Renews an attempt's delivery lease while the message is still `pending`. $1 tenant, $2 message, $3 lease ms. */
const RENEW_DELIVERY_LEASE_SQL = `UPDATE chat_message SET delivery_lease_until = now() + $3::int * interval '1 millisecond' WHERE tenant_id = $1 AND id = $2 AND status = 'pending'`;

/**
 * One attempt of a message delivery job, shared by the jobs of single-chat messages (MessageDelivery) and of
 * group-room messages (src/chat/mcp/group-room-messages.service.ts):
 * - claims the row: `UPDATE … SET delivery_attempts + 1, delivery_lease_until = now() + lease WHERE status = 'pending'
 *   AND the lease is free or ran out`, so a message already `sent` or `failed`, or held by a live attempt, is never
 *   sent again under job retry or a duplicate job; the lease is renewed every third of `leaseMs` while the attempt
 *   runs, and ChatDeliverySweeper hands a message whose lease ran out (its process died) to the queue again;
 * - calls `send`; writes `sent` (platform msg id, sent_at) or — for a failure that is not a retryable
 *   ChatPlatformError, or after DELIVERY_MAX_ATTEMPTS — `failed` with the reason (at most 1000 characters). A
 *   retryable failure gives the lease back and is rethrown so the job runs again.
 * - database outages (issue 20 item 2): a message the platform accepted is recorded `sent` once the database answers
 *   again (retried up to 240 s), never sent a second time; a database error before the platform call fails nothing:
 *   it is rethrown for the job's retry (or the sweep, once the lease ran out).
 * Residual window: a process killed after the platform accepted the message and before the `sent` write leaves the
 * row `pending`; the sweep hands it on after the lease and it is sent again (the platform port takes no idempotency
 * key).
 * @param ref the message, `label` naming it in the logs ("Message", "Group message"), and the lease (ms,
 *   CHAT_DELIVERY_LEASE_MS)
 * @param send delivers the claimed message; resolves with the platform's msg id, or null when nothing went to the
 *   platform (a sandbox contact)
 */
export async function attemptDelivery(
  dataSource: DataSource,
  logger: Logger,
  ref: { tenantId: string; messageId: string; label: string; leaseMs: number },
  send: (message: ChatMessageEntity) => Promise<string | null>,
): Promise<void> {
  const { tenantId, messageId, label, leaseMs } = ref;
  const [claimed] = await updateReturning<{ delivery_attempts: number }>(
    dataSource.manager,
    `UPDATE chat_message SET delivery_attempts = delivery_attempts + 1, delivery_lease_until = now() + $3::int * interval '1 millisecond'
      WHERE tenant_id = $1 AND id = $2 AND status = 'pending' AND (delivery_lease_until IS NULL OR delivery_lease_until < now())
      RETURNING delivery_attempts`,
    [tenantId, messageId, leaseMs],
  );
  if (!claimed) return;
  const attempt = claimed.delivery_attempts;
  const heartbeat = setInterval(() => {
    dataSource.query(RENEW_DELIVERY_LEASE_SQL, [tenantId, messageId, leaseMs]).catch((error: Error) => logger.warn(`${label} ${messageId}: could not renew the delivery lease: ${error.message}`));
  }, Math.max(100, Math.floor(leaseMs / 3)));
  heartbeat.unref();
  const settle = (changes: Partial<ChatMessageEntity>) =>
    retryWhileDatabaseUnavailable(() => dataSource.manager.update(ChatMessageEntity, { tenantId, id: messageId, status: 'pending' }, { ...changes, deliveryLeaseUntil: null }), { deadlineMs: SETTLE_RETRY_DEADLINE_MS });
  try {
    let platformMsgId: string | null;
    try {
      const message = await dataSource.manager.findOneByOrFail(ChatMessageEntity, { tenantId, id: messageId });
      platformMsgId = await send(message);
    } catch (error) {
      if (classifyDatabaseError(error)?.status === 503) {
        // A read failed before anything went to the platform: not the message's failure. Give the lease back.
        await dataSource.manager.update(ChatMessageEntity, { tenantId, id: messageId, status: 'pending' }, { deliveryLeaseUntil: null }).catch(() => undefined);
        throw error;
      }
      const retryable = error instanceof ChatPlatformError && error.retryable;
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, MAX_REASON_CHARS);
      if (deliveryOutcome({ retryable }, attempt) === 'retry') {
        logger.warn(`${label} ${messageId}: delivery attempt ${attempt} failed, will retry: ${reason}`);
        await dataSource.manager.update(ChatMessageEntity, { tenantId, id: messageId, status: 'pending' }, { deliveryLeaseUntil: null }).catch(() => undefined);
        throw error;
      }
      logger.warn(`${label} ${messageId}: delivery failed after ${attempt} attempt(s): ${reason}`);
      await settle({ status: 'failed', failureReason: reason });
      return;
    }
    // Sent: record it once the database answers again rather than sending it a second time.
    await settle({ status: 'sent', platformMsgId, sentAt: new Date(), failureReason: null });
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * The corp a message is sent through.
 * @throws UndeliverableError the corp no longer exists or is disabled
 */
export async function sendingCorp(manager: EntityManager, tenantId: string, corpId: string): Promise<WorkChatCorpEntity> {
  const corp = await manager.findOneBy(WorkChatCorpEntity, { tenantId, id: corpId });
  if (!corp) throw new UndeliverableError('The corp no longer exists.');
  if (!corp.enabled) throw new UndeliverableError(`Corp "${corp.corpName}" is disabled.`);
  return corp;
}

/**
 * The delivery job of outbound chat messages (issue 6, "Messages": `pending` → `sent` | `failed`). Each attempt
 * first claims the row (`UPDATE … SET delivery_attempts + 1 WHERE status = 'pending'`), so a message that is
 * already `sent` or `failed` is never sent again under job retry or a duplicate job. Then it calls the platform
 * port's sendMessage with the corp's context and the attachment read from the storage port, and writes `sent`
 * (platform msg id, sent_at) or, for a refusal that is not retryable or after {@link DELIVERY_MAX_ATTEMPTS},
 * `failed` with the platform's reason; a retryable failure (busy, rate limit, 5xx, network, timeout) is thrown so
 * the job runs again.
 *
 * A message to a sandbox contact (ExternalContactEntity.sandbox, an evaluation run's customer) is marked `sent`
 * without calling the platform (no platform msg id).
 *
 * Residual window: a process that dies after the platform accepted the message and before the `sent` write leaves
 * the row `pending`; the delivery sweep hands it on once its lease (CHAT_DELIVERY_LEASE_MS) ran out and it is sent
 * again (the platform port has no idempotency key to prevent that). See attemptDelivery.
 */
@Injectable()
export class MessageDelivery {
  private readonly logger = new Logger(MessageDelivery.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CHAT_PLATFORM) private readonly platform: ChatPlatform,
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @JobHandler(DELIVER_CHAT_MESSAGE, { concurrency: 4, retryLimit: DELIVERY_MAX_ATTEMPTS - 1, retryDelaySeconds: 2, retryBackoff: true, expireInSeconds: 300 })
  async deliver({ tenantId, messageId }: { tenantId: string; messageId: string }): Promise<void> {
    await attemptDelivery(this.dataSource, this.logger, { tenantId, messageId, label: 'Message', leaseMs: this.config.chatDelivery.leaseMs }, async (message) => {
      const contact = await this.dataSource.manager.findOneBy(ExternalContactEntity, { tenantId, id: message.contactId });
      if (!contact) throw new UndeliverableError('The contact no longer exists.');
      // An evaluation sandbox contact is not a real customer: nothing goes to the platform (src/chat/sandbox).
      if (contact.sandbox) return null;
      const corp = await sendingCorp(this.dataSource.manager, tenantId, message.corpId);
      const sent = await this.platform.sendMessage(
        corpContext(corp),
        { senderUserId: message.workChatUserId, externalUserId: contact.externalUserId, message: await this.outbound(message) },
      );
      return sent.msgId;
    });
  }

  /** The port's message: the text, or the attachment read from the storage. */
  private async outbound(message: ChatMessageEntity): Promise<OutboundMessage> {
    if (message.msgType === 'text') return { msgType: 'text', content: message.content ?? '' };
    if (!message.attachmentKey) throw new UndeliverableError('The message has no stored attachment.');
    const { stream } = await this.storage.open(message.attachmentKey);
    const data = await buffer(stream);
    return { msgType: message.msgType, media: { fileName: message.attachmentFileName ?? 'file', contentType: message.attachmentContentType ?? 'application/octet-stream', data } };
  }
}
