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

/** Longest failure reason kept on a message, characters. */
const MAX_REASON_CHARS = 1000;

/** A delivery that cannot succeed whatever the retries (the contact, room or corp is gone or disabled). */
export class UndeliverableError extends Error {}

/**
 * One attempt of a message delivery job, shared by the jobs of single-chat messages (MessageDelivery) and of
 * group-room messages (src/chat/mcp/group-room-messages.service.ts): claims the row (`UPDATE … SET
 * delivery_attempts + 1 WHERE status = 'pending'`), so a message already `sent` or `failed` is never sent again
 * under job retry or a duplicate job; calls `send`; writes `sent` (platform msg id, sent_at) or — for a failure that
 * is not a retryable ChatPlatformError, or after DELIVERY_MAX_ATTEMPTS — `failed` with the reason (at most
 * 1000 characters). A retryable failure is rethrown so the job runs again.
 * @param ref the message, and `label` naming it in the logs ("Message", "Group message")
 * @param send delivers the claimed message; resolves with the platform's msg id, or null when nothing went to the
 *   platform (a sandbox contact)
 */
export async function attemptDelivery(
  dataSource: DataSource,
  logger: Logger,
  ref: { tenantId: string; messageId: string; label: string },
  send: (message: ChatMessageEntity) => Promise<string | null>,
): Promise<void> {
  const { tenantId, messageId, label } = ref;
  const [claimed] = await updateReturning<{ delivery_attempts: number }>(
    dataSource.manager,
    `UPDATE chat_message SET delivery_attempts = delivery_attempts + 1 WHERE tenant_id = $1 AND id = $2 AND status = 'pending' RETURNING delivery_attempts`,
    [tenantId, messageId],
  );
  if (!claimed) return;
  const attempt = claimed.delivery_attempts;
  const message = await dataSource.manager.findOneByOrFail(ChatMessageEntity, { tenantId, id: messageId });
  try {
    const platformMsgId = await send(message);
    await dataSource.manager.update(ChatMessageEntity, { tenantId, id: messageId, status: 'pending' }, { status: 'sent', platformMsgId, sentAt: new Date(), failureReason: null });
  } catch (error) {
    const retryable = error instanceof ChatPlatformError && error.retryable;
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, MAX_REASON_CHARS);
    if (deliveryOutcome({ retryable }, attempt) === 'retry') {
      logger.warn(`${label} ${messageId}: delivery attempt ${attempt} failed, will retry: ${reason}`);
      throw error;
    }
    logger.warn(`${label} ${messageId}: delivery failed after ${attempt} attempt(s): ${reason}`);
    await dataSource.manager.update(ChatMessageEntity, { tenantId, id: messageId, status: 'pending' }, { status: 'failed', failureReason: reason });
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
 * the row `pending`, and the retry sends it again (the platform port has no idempotency key to prevent that).
 */
@Injectable()
export class MessageDelivery {
  private readonly logger = new Logger(MessageDelivery.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CHAT_PLATFORM) private readonly platform: ChatPlatform,
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
  ) {}

  @JobHandler(DELIVER_CHAT_MESSAGE, { concurrency: 4, retryLimit: DELIVERY_MAX_ATTEMPTS - 1, retryDelaySeconds: 2, retryBackoff: true, expireInSeconds: 300 })
  async deliver({ tenantId, messageId }: { tenantId: string; messageId: string }): Promise<void> {
    await attemptDelivery(this.dataSource, this.logger, { tenantId, messageId, label: 'Message' }, async (message) => {
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
