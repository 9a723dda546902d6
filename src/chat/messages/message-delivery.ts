import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { buffer } from 'node:stream/consumers';
import { DataSource } from 'typeorm';
import { BLOB_STORAGE, type BlobStorage } from '../../common/storage/storage.port';
import { JobHandler } from '../../jobs/job-handler.decorator';
import { ExternalContactEntity } from '../contacts/external-contact.entity';
import { WorkChatCorpEntity } from '../corps/work-chat-corp.entity';
import { CHAT_PLATFORM, type ChatPlatform, type OutboundMessage } from '../platform/chat-platform.port';
import { ChatPlatformError } from '../platform/chat-platform.error';
import { ChatMessageEntity } from './chat-message.entity';
import { DELIVER_CHAT_MESSAGE } from './message-delivery.job';
import { DELIVERY_MAX_ATTEMPTS, deliveryOutcome } from './message-delivery.rules';

/** Longest failure reason kept on a message, characters. */
const MAX_REASON_CHARS = 1000;

/** A delivery that cannot succeed whatever the retries (the contact or corp is gone or disabled). */
class UndeliverableError extends Error {}

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
    // Postgres answers UPDATE … RETURNING through DataSource.query as [rows, affected count].
    const claimed: unknown = await this.dataSource.query(
      `UPDATE chat_message SET delivery_attempts = delivery_attempts + 1 WHERE tenant_id = $1 AND id = $2 AND status = 'pending' RETURNING delivery_attempts`,
      [tenantId, messageId],
    );
    const rows = (Array.isArray(claimed) && Array.isArray(claimed[0]) ? claimed[0] : claimed) as { delivery_attempts: number }[];
    if (rows.length === 0) return;
    const attempt = rows[0].delivery_attempts;
    const message = await this.dataSource.manager.findOneByOrFail(ChatMessageEntity, { tenantId, id: messageId });
    try {
      const contact = await this.dataSource.manager.findOneBy(ExternalContactEntity, { tenantId, id: message.contactId });
      if (!contact) throw new UndeliverableError('The contact no longer exists.');
      if (contact.sandbox) {
        // An evaluation sandbox contact is not a real customer: nothing goes to the platform (src/chat/sandbox).
        await this.dataSource.manager.update(ChatMessageEntity, { tenantId, id: messageId, status: 'pending' }, { status: 'sent', sentAt: new Date(), failureReason: null });
        return;
      }
      const corp = await this.dataSource.manager.findOneBy(WorkChatCorpEntity, { tenantId, id: message.corpId });
      if (!corp) throw new UndeliverableError('The corp no longer exists.');
      if (!corp.enabled) throw new UndeliverableError(`Corp "${corp.corpName}" is disabled.`);
      const sent = await this.platform.sendMessage(
        { tenantId, corpId: corp.id, platformCorpId: corp.workChatCorpId, secret: corp.secret ?? '' },
        { senderUserId: message.workChatUserId, externalUserId: contact.externalUserId, message: await this.outbound(message) },
      );
      await this.dataSource.manager.update(ChatMessageEntity, { tenantId, id: messageId, status: 'pending' }, { status: 'sent', platformMsgId: sent.msgId, sentAt: new Date(), failureReason: null });
    } catch (error) {
      const retryable = error instanceof ChatPlatformError && error.retryable;
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, MAX_REASON_CHARS);
      if (deliveryOutcome({ retryable }, attempt) === 'retry') {
        this.logger.warn(`Message ${messageId}: delivery attempt ${attempt} failed, will retry: ${reason}`);
        throw error;
      }
      this.logger.warn(`Message ${messageId}: delivery failed after ${attempt} attempt(s): ${reason}`);
      await this.dataSource.manager.update(ChatMessageEntity, { tenantId, id: messageId, status: 'pending' }, { status: 'failed', failureReason: reason });
    }
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
