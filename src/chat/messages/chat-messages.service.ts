import { BadRequestException, ConflictException, Inject, Injectable, Logger, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { fileTypeFromFile } from 'file-type';
import { createReadStream } from 'node:fs';
import { DataSource, EntityManager } from 'typeorm';
import { detectContentType } from '../../common/storage/content-type';
import { toDisplayFileName } from '../../common/storage/file-name';
import { BLOB_STORAGE, BlobTooLargeError, type BlobStorage, type StoredBlob } from '../../common/storage/storage.port';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JobsService } from '../../jobs/jobs.service';
import { ExternalContactEntity } from '../contacts/external-contact.entity';
import { corpContext } from '../contacts/corp-lookup';
import { WorkChatCorpEntity } from '../corps/work-chat-corp.entity';
import { ChatMessageEntity, type MessageSender, type MessageType } from './chat-message.entity';
import { ChatContactsMessageDto, MessageCommentDto, MessageCommentRequest, SendChatContactMessageFieldsDto, toChatContactsMessageDto, toMessageCommentDto } from './chat-messages.dto';
import { DELIVER_CHAT_MESSAGE } from './message-delivery.job';
import { MessageCommentEntity } from './message-comment.entity';
import { checkAttachment, checkFilePresence, MessageSendRefusal, parseSendRequest } from './message-send.rules';
import { isUuidShaped } from '../../common/ids/uuid-shape';
import { messageTextProblem } from '../mcp/chat-tools.rules';

/** Storage namespace of message attachments. */
export const MESSAGE_ATTACHMENT_NAMESPACE = 'chat-messages';

/** An inbound message as the inbound pipeline hands it over (see {@link ChatMessagesService.storeInbound}). */
export interface InboundMessageInput {
  tenantId: string;
  corpId: string;
  /** chat_external_contact.id of the (customer, staff member) relation. */
  contactId: string;
  workChatUserId: string;
  msgType: MessageType;
  content?: string | null;
  /** The platform's message id: the idempotency key. */
  platformMsgId: string;
  /** When the customer sent it. */
  sentAt: Date;
  /** `group` for a message in a group chat; unset (null) for a single chat. */
  contactType?: 'group';
}

/**
 * Contact messages (chat-management-api.md, Contact message; issue 6, "Messages"): the console send
 * (`sendChatContactMessage`) with its attachment checks, storage and durable delivery; the store of inbound messages
 * and the conversation history that the inbound pipeline uses; operators' review comments.
 */
@Injectable()
export class ChatMessagesService {
  private readonly logger = new Logger(ChatMessagesService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(BLOB_STORAGE) private readonly storage: BlobStorage,
    private readonly jobs: JobsService,
  ) {}

  /**
   * Sends a message from the staff member to the contact: checks the fields and the attachment (type from its
   * bytes, per-type size limit), stores the attachment through the storage port, writes the row `pending` and
   * enqueues its delivery in one transaction. On any refusal nothing is stored (the caller's interceptor removes
   * multer's temporary file).
   * @param file multer's upload of the `file` field (on disk), if any
   * @returns the stored message (status `pending`)
   * @throws BadRequestException (400) bad `request` JSON or fields, file missing/refused/not of the type, unknown quoted message
   * @throws PayloadTooLargeException (413) attachment over its type's limit
   * @throws NotFoundException (404) the contact is not this staff member's contact in the tenant
   * @throws ConflictException (409) the contact's corp is disabled
   */
  async send(tenantId: string, workChatUserId: string, contactId: string, fields: SendChatContactMessageFieldsDto, file: Express.Multer.File | undefined): Promise<ChatContactsMessageDto> {
    const limits = this.config.chatMessages;
    let request;
    let attachment: { contentType: string; fileName: string } | undefined;
    try {
      request = parseSendRequest(fields.request, limits.maxTextChars);
      checkFilePresence(request.msgType, !!file);
      if (file && request.msgType !== 'text') {
        const detected = file.size > 0 ? (await fileTypeFromFile(file.path))?.mime : undefined;
        checkAttachment({ msgType: request.msgType, size: file.size, detectedType: detected, maxBytes: limits.maxBytes });
        const contentType = request.msgType === 'file' ? await detectContentType(file.path, file.mimetype) : (detected as string);
        attachment = { contentType, fileName: toDisplayFileName(file.originalname) };
      }
    } catch (error) {
      if (error instanceof MessageSendRefusal) throw error.status === 413 ? new PayloadTooLargeException(error.message) : new BadRequestException(error.message);
      throw error;
    }
    const contact = await this.findContact(this.dataSource.manager, tenantId, workChatUserId, contactId);
    const corp = await this.dataSource.manager.findOneBy(WorkChatCorpEntity, { tenantId, id: contact.corpId });
    if (!corp) throw new NotFoundException(`The corp of contact ${contactId} no longer exists in this tenant.`);
    corpContext(corp);
    if (request.quoteChatMsgId) {
      const quoted = await this.dataSource.manager.existsBy(ChatMessageEntity, { tenantId, contactId, id: request.quoteChatMsgId });
      if (!quoted) throw new BadRequestException(`\`request.quoteChatMsgId\` ${request.quoteChatMsgId} is not a message of this contact.`);
    }
    let blob: StoredBlob | undefined;
    if (file && attachment) {
      try {
        blob = await this.storage.put(createReadStream(file.path), { namespace: MESSAGE_ATTACHMENT_NAMESPACE, maxBytes: limits.maxBytes[request.msgType as Exclude<MessageType, 'text'>] });
      } catch (error) {
        if (error instanceof BlobTooLargeError) throw new PayloadTooLargeException(`The ${request.msgType} attachment is over ${error.maxBytes} bytes.`);
        throw error;
      }
    }
    try {
      const saved = await this.dataSource.transaction(async (manager) => {
        const row = manager.create(ChatMessageEntity, {
          tenantId,
          corpId: contact.corpId,
          contactId: contact.id,
          workChatUserId: contact.workChatUserId,
          direction: 'out',
          sender: 'staff',
          msgType: request.msgType,
          content: request.content ?? null,
          attachmentKey: blob?.key ?? null,
          attachmentContentType: attachment?.contentType ?? null,
          attachmentSizeBytes: blob?.size ?? null,
          attachmentSha256: blob?.sha256 ?? null,
          attachmentFileName: attachment?.fileName ?? null,
          quoteMessageId: request.quoteChatMsgId ?? null,
          originalAiContent: fields.originalAiContent ?? null,
          agentChatId: fields.agentChatId ?? null,
          contactType: fields.contactType ?? null,
          status: 'pending',
          platformMsgId: null,
          failureReason: null,
          deliveryAttempts: 0,
          sentAt: null,
        });
        const stored = await manager.save(row);
        await manager.update(ExternalContactEntity, { tenantId, id: contact.id }, { lastMessageAt: stored.createdAt });
        await this.jobs.enqueue(DELIVER_CHAT_MESSAGE, { tenantId, messageId: stored.id }, { manager });
        return stored;
      });
      this.jobs.notify(DELIVER_CHAT_MESSAGE);
      return toChatContactsMessageDto(saved);
    } catch (error) {
      if (blob) await this.storage.delete(blob.key).catch((cause: unknown) => this.logger.warn(`Could not remove attachment ${blob?.key}: ${(cause as Error).message}`));
      throw error;
    }
  }

  /**
   * Stores an inbound customer message, idempotently by its platform message id: a second call with the same id
   * stores nothing and returns the first row with `created: false`. Also sets the contact's `lastMessageAt`.
   */
  async storeInbound(input: InboundMessageInput, manager: EntityManager = this.dataSource.manager): Promise<{ message: ChatMessageEntity; created: boolean }> {
    const result = await manager
      .createQueryBuilder()
      .insert()
      .into(ChatMessageEntity)
      .values({
        tenantId: input.tenantId,
        corpId: input.corpId,
        contactId: input.contactId,
        workChatUserId: input.workChatUserId,
        direction: 'in',
        sender: 'customer',
        msgType: input.msgType,
        content: input.content ?? null,
        status: 'received',
        platformMsgId: input.platformMsgId,
        sentAt: input.sentAt,
        contactType: input.contactType ?? null,
      })
      .orIgnore()
      .returning(['id'])
      .execute();
    const created = (result.raw as unknown[]).length > 0;
    const message = await manager.findOneByOrFail(ChatMessageEntity, { tenantId: input.tenantId, corpId: input.corpId, platformMsgId: input.platformMsgId });
    if (created) await manager.update(ExternalContactEntity, { tenantId: input.tenantId, id: input.contactId }, { lastMessageAt: message.createdAt });
    return { message, created };
  }

  /**
   * The last `limit` messages of a contact in both directions, oldest first (the conversation history a reply is
   * built from).
   * @param limit 1..500
   */
  async history(tenantId: string, contactId: string, limit: number): Promise<ChatMessageEntity[]> {
    const take = Math.min(Math.max(1, Math.trunc(limit)), 500);
    const rows = await this.dataSource.getRepository(ChatMessageEntity).find({ where: { tenantId, contactId }, order: { createdAt: 'DESC', id: 'DESC' }, take });
    return rows.reverse();
  }

  /**
   * The caller's review of a message.
   * @throws NotFoundException (404) unknown message of this contact, or no comment by this reviewer yet
   */
  async getComment(tenantId: string, workChatUserId: string, contactId: string, messageId: string, reviewer: string): Promise<MessageCommentDto> {
    const message = await this.findMessage(tenantId, workChatUserId, contactId, messageId);
    const comment = await this.dataSource.manager.findOneBy(MessageCommentEntity, { tenantId, messageId: message.id, reviewer });
    if (!comment) throw new NotFoundException(`You have not commented on message ${messageId} yet.`);
    return toMessageCommentDto(comment);
  }

  /**
   * Creates or replaces the caller's review of an AI message (one per message and reviewer).
   * @throws BadRequestException (400) no rating, content or tags given
   * @throws NotFoundException (404) unknown message of this contact
   * @throws ConflictException (409) the message is not an AI message (neither written by the digital staff nor sent from an AI suggestion)
   */
  async saveComment(tenantId: string, workChatUserId: string, contactId: string, messageId: string, reviewer: string, body: MessageCommentRequest): Promise<MessageCommentDto> {
    if (body.rating === undefined && (body.content === undefined || body.content.trim() === '') && (body.tags === undefined || body.tags.length === 0)) {
      throw new BadRequestException('A comment needs at least one of rating (1..5), content or tags.');
    }
    const message = await this.findMessage(tenantId, workChatUserId, contactId, messageId);
    if (message.sender !== 'ai' && message.originalAiContent === null) {
      throw new ConflictException(`Message ${messageId} is not an AI message: only messages of the digital staff or sent from an AI suggestion (originalAiContent) are reviewed.`);
    }
    const tags = [...new Set((body.tags ?? []).map((tag) => tag.trim()).filter(Boolean))];
    await this.dataSource
      .createQueryBuilder()
      .insert()
      .into(MessageCommentEntity)
      .values({ tenantId, messageId: message.id, reviewer, rating: body.rating ?? null, content: body.content ?? null, tags })
      .orUpdate(['rating', 'content', 'tags', 'updated_at'], ['tenant_id', 'message_id', 'reviewer'])
      .execute();
    const saved = await this.dataSource.manager.findOneByOrFail(MessageCommentEntity, { tenantId, messageId: message.id, reviewer });
    return toMessageCommentDto(saved);
  }

  /**
   * A message of the staff member's contact in the tenant.
   * @throws NotFoundException (404) otherwise (another tenant's or contact's ids included)
   */
  async findMessage(tenantId: string, workChatUserId: string, contactId: string, messageId: string): Promise<ChatMessageEntity> {
    const message = isUuidShaped(contactId) && isUuidShaped(messageId) ? await this.dataSource.manager.findOneBy(ChatMessageEntity, { tenantId, id: messageId, contactId, workChatUserId }) : null;
    if (!message) throw new NotFoundException(`No message ${messageId} of contact ${contactId} of staff user ${workChatUserId} in this tenant.`);
    return message;
  }

  /**
   * Sends a text to a contact for an API caller (the tool-style endpoints `{T}/mcp/chat/contact/message/send` and
   * the MCP tool `send_message`, issue 6 "Tool-style endpoints"): the same store and durable delivery as
   * {@link send} — the row is written `pending` and DELIVER_CHAT_MESSAGE is enqueued in one transaction, so the
   * message shows in the contact's history like a console send and is delivered exactly like one.
   * @param contact the contact, read by the caller within the tenant
   * @param input.content the text: not blank, at most CHAT_MESSAGE_MAX_TEXT_CHARS characters
   * @param input.sender who wrote it (`ai` for the digital staff acting through a tool)
   * @returns the stored message (status `pending`)
   * @throws BadRequestException (400) blank or too long text, quoted message not of this contact
   * @throws NotFoundException (404) the contact's corp no longer exists
   * @throws ConflictException (409) the contact's corp is disabled
   */
  async sendTextByApi(
    contact: ExternalContactEntity,
    input: { content: string; sender: MessageSender; quoteChatMsgId?: string; agentChatId?: string; contactType?: string },
  ): Promise<ChatContactsMessageDto> {
    const tenantId = contact.tenantId;
    const textProblem = messageTextProblem(input.content, this.config.chatMessages.maxTextChars);
    if (textProblem) throw new BadRequestException(textProblem);
    const corp = await this.dataSource.manager.findOneBy(WorkChatCorpEntity, { tenantId, id: contact.corpId });
    if (!corp) throw new NotFoundException(`The corp of contact ${contact.id} no longer exists in this tenant.`);
    corpContext(corp);
    const quoteId = input.quoteChatMsgId?.toLowerCase();
    if (quoteId) {
      const quoted = isUuidShaped(quoteId) && (await this.dataSource.manager.existsBy(ChatMessageEntity, { tenantId, contactId: contact.id, id: quoteId }));
      if (!quoted) throw new BadRequestException(`\`quoteChatMsgId\` ${input.quoteChatMsgId} is not a message of this contact.`);
    }
    const saved = await this.dataSource.transaction(async (manager) => {
      const stored = await manager.save(
        manager.create(ChatMessageEntity, {
          tenantId,
          corpId: contact.corpId,
          contactId: contact.id,
          workChatUserId: contact.workChatUserId,
          direction: 'out',
          sender: input.sender,
          msgType: 'text',
          content: input.content,
          quoteMessageId: quoteId ?? null,
          agentChatId: input.agentChatId ?? null,
          contactType: input.contactType ?? null,
          status: 'pending',
          platformMsgId: null,
          failureReason: null,
          deliveryAttempts: 0,
          sentAt: null,
        }),
      );
      await manager.update(ExternalContactEntity, { tenantId, id: contact.id }, { lastMessageAt: stored.createdAt });
      await this.jobs.enqueue(DELIVER_CHAT_MESSAGE, { tenantId, messageId: stored.id }, { manager });
      return stored;
    });
    this.jobs.notify(DELIVER_CHAT_MESSAGE);
    return toChatContactsMessageDto(saved);
  }

  private async findContact(manager: EntityManager, tenantId: string, workChatUserId: string, contactId: string): Promise<ExternalContactEntity> {
    const contact = isUuidShaped(contactId) ? await manager.findOneBy(ExternalContactEntity, { tenantId, id: contactId, workChatUserId }) : null;
    if (!contact) throw new NotFoundException(`No contact ${contactId} of staff user ${workChatUserId} in this tenant.`);
    return contact;
  }
}

