import { BadRequestException, ConflictException, Inject, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { JobHandler } from '../../jobs/job-handler.decorator';
import { JobsService } from '../../jobs/jobs.service';
import { corpContext } from '../contacts/corp-lookup';
import { WorkChatCorpEntity } from '../corps/work-chat-corp.entity';
import { GroupMemberEntity } from '../group-rooms/group-member.entity';
import { GroupRoomEntity } from '../group-rooms/group-room.entity';
import { ChatMessageEntity, type MessageSender } from '../messages/chat-message.entity';
import { ChatContactsMessageDto, toChatContactsMessageDto } from '../messages/chat-messages.dto';
import { attemptDelivery, sendingCorp, UndeliverableError } from '../messages/message-delivery';
import { DELIVERY_MAX_ATTEMPTS } from '../messages/message-delivery.rules';
import { CHAT_PLATFORM, type ChatPlatform } from '../platform';
import { messageTextProblem } from './chat-tools.rules';
import { DELIVER_GROUP_ROOM_MESSAGE } from './group-room-messages.job';
import { isUuidShaped } from '../../common/ids/uuid-shape';

/** `contact_type` of a group-room message in chat_message. */
export const GROUP_ROOM_CONTACT_TYPE = 'group';

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
    const room = isUuidShaped(input.roomId) ? await this.dataSource.manager.findOneBy(GroupRoomEntity, { tenantId, id: input.roomId }) : null;
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
      const quoted = isUuidShaped(quoteId) && (await this.dataSource.manager.existsBy(ChatMessageEntity, { tenantId, contactId: room.id, id: quoteId }));
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
   * The delivery job of group-room messages: one attemptDelivery (claim the `pending` row, send, `sent` | `failed`,
   * the same bookkeeping as single-chat messages) whose send step is the port's sendGroupMessage as the message's
   * staff member into the room's platform chat. Same residual window as MessageDelivery: a crash between the
   * platform's acceptance and the `sent` write sends the message again on retry.
   */
  @JobHandler(DELIVER_GROUP_ROOM_MESSAGE, { concurrency: 4, retryLimit: DELIVERY_MAX_ATTEMPTS - 1, retryDelaySeconds: 2, retryBackoff: true, expireInSeconds: 300 })
  async deliver({ tenantId, messageId }: { tenantId: string; messageId: string }): Promise<void> {
    await attemptDelivery(this.dataSource, this.logger, { tenantId, messageId, label: 'Group message', leaseMs: this.config.chatDelivery.leaseMs }, async (message) => {
      const room = await this.dataSource.manager.findOneBy(GroupRoomEntity, { tenantId, id: message.contactId });
      if (!room) throw new UndeliverableError('The group room no longer exists.');
      const corp = await sendingCorp(this.dataSource.manager, tenantId, message.corpId);
      const sent = await this.platform.sendGroupMessage(corpContext(corp), { senderUserId: message.workChatUserId, chatId: room.chatId, message: { msgType: 'text', content: message.content ?? '' } });
      return sent.msgId;
    });
  }
}
