import { BadRequestException, ConflictException, Inject, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { JobHandler } from '../../jobs/job-handler.decorator';
import { JobsService } from '../../jobs/jobs.service';
import { corpContext } from '../contacts/corp-lookup';
import { updateReturning } from '../contacts/update-returning';
import { WorkChatCorpEntity } from '../corps/work-chat-corp.entity';
import { GroupMemberEntity } from '../group-rooms/group-member.entity';
import { GroupRoomEntity } from '../group-rooms/group-room.entity';
import { ChatMessageEntity, type MessageSender } from '../messages/chat-message.entity';
import { ChatContactsMessageDto, toChatContactsMessageDto } from '../messages/chat-messages.dto';
import { DELIVERY_MAX_ATTEMPTS, deliveryOutcome } from '../messages/message-delivery.rules';
import { CHAT_PLATFORM, ChatPlatformError, type ChatPlatform } from '../platform';
import { messageTextProblem } from './chat-tools.rules';
import { DELIVER_GROUP_ROOM_MESSAGE } from './group-room-messages.job';

/** `contact_type` of a group-room message in chat_message. */
export const GROUP_ROOM_CONTACT_TYPE = 'group';

/** Longest failure reason kept on a message, characters (as MessageDelivery). */
const MAX_REASON_CHARS = 1000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A delivery that cannot succeed whatever the retries (the room or corp is gone or disabled). */
class UndeliverableError extends Error {}

/**
 * Messages into customer group chats (group rooms) for the tool-style endpoint
 * `{T}/mcp/chat/contact/message/send-group` and the MCP tool `send_group_message` (issue 6, "Tool-style
 * endpoints"). They use the message store of single chats: a chat_message row whose `contactId` is the group room id
 * (the room's `contactId` on the console paths) and `contactType` `group`, so it shows in the room's history
 * (ChatMessagesService.history(tenant, roomId)). Delivery is the same durable scheme as MessageDelivery (claim the
 * `pending` row, call the platform port, `sent` | `failed`, retry only retryable failures) through the port's
 * sendGroupMessage; it has its own job because MessageDelivery sends to one customer.
 */
@Injectable()
export class GroupRoomMessages {
  private readonly logger = new Logger(GroupRoomMessages.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CHAT_PLATFORM) private readonly platform: ChatPlatform,
    private readonly jobs: JobsService,
  ) {}

  /**
   * Stores a text into a group room `pending` and enqueues its delivery, in one transaction.
   * @param input.roomId chat_group_room.id
   * @param input.workChatUserId the sending staff member: the room's owner or one of its staff members; default the owner
   * @param input.content not blank, at most CHAT_MESSAGE_MAX_TEXT_CHARS characters
   * @returns the stored message (status `pending`; `contactId` is the room id)
   * @throws BadRequestException (400) blank or too long text, quoted message not of this room
   * @throws NotFoundException (404) no such room in the tenant, or the staff member is not in it
   * @throws ConflictException (409) AI replies are switched off for the room, or the room's corp is disabled
   */
  async sendText(
    tenantId: string,
    input: { roomId: string; workChatUserId?: string; content: string; sender: MessageSender; quoteChatMsgId?: string; agentChatId?: string },
  ): Promise<ChatContactsMessageDto> {
    const problem = messageTextProblem(input.content, this.config.chatMessages.maxTextChars);
    if (problem) throw new BadRequestException(problem);
    const room = UUID.test(input.roomId) ? await this.dataSource.manager.findOneBy(GroupRoomEntity, { tenantId, id: input.roomId }) : null;
    if (!room) throw new NotFoundException(`No group room ${input.roomId} in this tenant.`);
    const sender = input.workChatUserId ?? room.ownerWorkChatUserId;
    if (sender !== room.ownerWorkChatUserId) {
      const member = await this.dataSource.manager.existsBy(GroupMemberEntity, { tenantId, groupRoomId: room.id, memberUserId: sender, memberType: 1 });
      if (!member) throw new NotFoundException(`Staff member ${sender} has no group room ${input.roomId} in this tenant (not its owner or one of its staff members).`);
    }
    if (input.sender === 'ai' && !room.aiEnabled) {
      throw new ConflictException(`AI replies are switched off for group room ${room.id} (a person is handling it); switch them on (POST {C}/workChat/{workChatUserId}/contact/room/${room.id}/ai/switch) to let the digital staff send.`);
    }
    const corp = await this.dataSource.manager.findOneBy(WorkChatCorpEntity, { tenantId, id: room.corpId });
    if (!corp) throw new NotFoundException(`The corp of group room ${room.id} no longer exists in this tenant.`);
    corpContext(corp);
    const quoteId = input.quoteChatMsgId?.toLowerCase();
    if (quoteId) {
      const quoted = UUID.test(quoteId) && (await this.dataSource.manager.existsBy(ChatMessageEntity, { tenantId, contactId: room.id, id: quoteId }));
      if (!quoted) throw new BadRequestException(`\`quoteChatMsgId\` ${input.quoteChatMsgId} is not a message of this group room.`);
    }
    const saved = await this.dataSource.transaction(async (manager) => {
      const stored = await manager.save(
        manager.create(ChatMessageEntity, {
          tenantId,
          corpId: room.corpId,
          contactId: room.id,
          workChatUserId: sender,
          direction: 'out',
          sender: input.sender,
          msgType: 'text',
          content: input.content,
          quoteMessageId: quoteId ?? null,
          agentChatId: input.agentChatId ?? null,
          contactType: GROUP_ROOM_CONTACT_TYPE,
          status: 'pending',
          platformMsgId: null,
          failureReason: null,
          deliveryAttempts: 0,
          sentAt: null,
        }),
      );
      await this.jobs.enqueue(DELIVER_GROUP_ROOM_MESSAGE, { tenantId, messageId: stored.id }, { manager });
      return stored;
    });
    this.jobs.notify(DELIVER_GROUP_ROOM_MESSAGE);
    return toChatContactsMessageDto(saved);
  }

  /**
   * The delivery job of group-room messages: claims the row (`delivery_attempts + 1 WHERE status = 'pending'`, so a
   * message already `sent` or `failed` is never sent again under retries or a duplicate job), sends it with the
   * port's sendGroupMessage as its staff member into the room's platform chat, then writes `sent` (platform msg id,
   * sent_at) or — for a refusal that is not retryable, or after DELIVERY_MAX_ATTEMPTS — `failed` with the reason.
   * Same residual window as MessageDelivery: a crash between the platform's acceptance and the `sent` write sends
   * the message again on retry.
   */
  @JobHandler(DELIVER_GROUP_ROOM_MESSAGE, { concurrency: 4, retryLimit: DELIVERY_MAX_ATTEMPTS - 1, retryDelaySeconds: 2, retryBackoff: true, expireInSeconds: 300 })
  async deliver({ tenantId, messageId }: { tenantId: string; messageId: string }): Promise<void> {
    const [claimed] = await updateReturning<{ delivery_attempts: number }>(
      this.dataSource.manager,
      `UPDATE chat_message SET delivery_attempts = delivery_attempts + 1 WHERE tenant_id = $1 AND id = $2 AND status = 'pending' RETURNING delivery_attempts`,
      [tenantId, messageId],
    );
    if (!claimed) return;
    const attempt = claimed.delivery_attempts;
    const message = await this.dataSource.manager.findOneByOrFail(ChatMessageEntity, { tenantId, id: messageId });
    try {
      const room = await this.dataSource.manager.findOneBy(GroupRoomEntity, { tenantId, id: message.contactId });
      if (!room) throw new UndeliverableError('The group room no longer exists.');
      const corp = await this.dataSource.manager.findOneBy(WorkChatCorpEntity, { tenantId, id: message.corpId });
      if (!corp) throw new UndeliverableError('The corp no longer exists.');
      if (!corp.enabled) throw new UndeliverableError(`Corp "${corp.corpName}" is disabled.`);
      const sent = await this.platform.sendGroupMessage(corpContext(corp), { senderUserId: message.workChatUserId, chatId: room.chatId, message: { msgType: 'text', content: message.content ?? '' } });
      await this.dataSource.manager.update(ChatMessageEntity, { tenantId, id: messageId, status: 'pending' }, { status: 'sent', platformMsgId: sent.msgId, sentAt: new Date(), failureReason: null });
    } catch (error) {
      const retryable = error instanceof ChatPlatformError && error.retryable;
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, MAX_REASON_CHARS);
      if (deliveryOutcome({ retryable }, attempt) === 'retry') {
        this.logger.warn(`Group message ${messageId}: delivery attempt ${attempt} failed, will retry: ${reason}`);
        throw error;
      }
      this.logger.warn(`Group message ${messageId}: delivery failed after ${attempt} attempt(s): ${reason}`);
      await this.dataSource.manager.update(ChatMessageEntity, { tenantId, id: messageId, status: 'pending' }, { status: 'failed', failureReason: reason });
    }
  }
}
