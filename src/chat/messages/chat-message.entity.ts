import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Which way a message went: `in` from the customer, `out` to the customer. */
export const MESSAGE_DIRECTIONS = ['in', 'out'] as const;
export type MessageDirection = (typeof MESSAGE_DIRECTIONS)[number];

/** Who wrote a message: the customer, a staff member (console), or the digital staff (AI). */
export const MESSAGE_SENDERS = ['customer', 'staff', 'ai'] as const;
export type MessageSender = (typeof MESSAGE_SENDERS)[number];

/** Message types (chat-management-api.md, message-send multipart fields; `emotion` is a GIF). */
export const MESSAGE_TYPES = ['text', 'image', 'video', 'file', 'emotion'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/**
 * Delivery state. Outbound rows: `pending` (written, delivery job queued) → `sent` (the platform accepted it) or
 * `failed` (the platform refused, or retries ran out; `failureReason` says why). Inbound rows are `received`.
 */
export const MESSAGE_STATUSES = ['pending', 'sent', 'failed', 'received'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/**
 * One message between a staff member (or the digital staff on their behalf) and an external contact
 * (chat-management-api.md, Contact message: ChatContactsMessageDto; issue 6, "Messages"). Attachments live in the
 * file storage port under `attachmentKey`; their name and type are kept here, never in the storage.
 *
 * Every index leads with `tenant_id`: the conversation history (contact, newest first), the idempotency of inbound
 * messages (platform message id, unique when set), the delivery queue's view of pending rows.
 */
@Entity({ name: 'chat_message' })
@Index('ix_chat_message_contact_created', ['tenantId', 'contactId', 'createdAt'])
@Index('ux_chat_message_platform_msg', ['tenantId', 'corpId', 'platformMsgId'], { unique: true, where: '"platform_msg_id" IS NOT NULL' })
@Index('ix_chat_message_status_created', ['tenantId', 'status', 'createdAt'])
@Index('ux_chat_message_ai_reply', ['tenantId', 'inReplyToMessageId'], { unique: true, where: `"sender" = 'ai' AND "in_reply_to_message_id" IS NOT NULL` })
export class ChatMessageEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** Atrium's corp record (chat_work_corp.id). */
  @Column({ type: 'uuid' })
  corpId: string;

  /** The external contact (chat_external_contact.id, the spec's contactId). */
  @Column({ type: 'uuid' })
  contactId: string;

  /** The staff member's platform userid (the spec's workChatUserId). */
  @Column({ type: 'varchar', length: 64 })
  workChatUserId: string;

  @Column({ type: 'varchar', length: 3 })
  direction: MessageDirection;

  @Column({ type: 'varchar', length: 10 })
  sender: MessageSender;

  @Column({ type: 'varchar', length: 10 })
  msgType: MessageType;

  /** The text (text messages); null for attachments. */
  @Column({ type: 'text', nullable: true })
  content: string | null;

  /** Storage key of the attachment (file storage port), or null. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  attachmentKey: string | null;

  /** Content type decided from the attachment's bytes. */
  @Column({ type: 'varchar', length: 127, nullable: true })
  attachmentContentType: string | null;

  /** Attachment size, bytes. */
  @Column({ type: 'bigint', nullable: true, transformer: { to: (value?: number | null) => value, from: (value?: string | null) => (value == null ? null : Number(value)) } })
  attachmentSizeBytes: number | null;

  /** SHA-256 of the attachment, lowercase hex. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  attachmentSha256: string | null;

  /** The attachment's file name as uploaded (display only, never a path). */
  @Column({ type: 'varchar', length: 255, nullable: true })
  attachmentFileName: string | null;

  /** The quoted message (chat_message.id), or null. */
  @Column({ type: 'uuid', nullable: true })
  quoteMessageId: string | null;

  /** What the AI suggested before the operator edited it, or null. */
  @Column({ type: 'text', nullable: true })
  originalAiContent: string | null;

  /** The agent conversation id this message belongs to, or null. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  agentChatId: string | null;

  /** The conversation type as the client gave it, or null. */
  @Column({ type: 'varchar', length: 32, nullable: true })
  contactType: string | null;

  @Column({ type: 'varchar', length: 10 })
  status: MessageStatus;

  /** The platform's message id (sent or received), or null. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  platformMsgId: string | null;

  /** Why delivery failed (the platform's reason), or null. */
  @Column({ type: 'text', nullable: true })
  failureReason: string | null;

  /** Delivery attempts started so far (outbound). */
  @Column({ type: 'integer', default: 0 })
  deliveryAttempts: number;

  /** Until when the delivery attempt sending it holds it (issue 20 item 2; see attemptDelivery), or null. */
  @Index('ix_chat_message_delivery_lease')
  @Column({ type: 'timestamptz', nullable: true })
  deliveryLeaseUntil: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  /** When the platform accepted it (outbound) or sent it (inbound), or null. */
  @Column({ type: 'timestamptz', nullable: true })
  sentAt: Date | null;

  /**
   * The inbound message (chat_message.id) the digital staff answered with this message (AI replies and out-of-hours
   * messages of the inbound pipeline), or null. At most one AI message per inbound message (partial unique index
   * `ux_chat_message_ai_reply`), so a retried reply job can never send a second reply.
   */
  @Column({ type: 'uuid', nullable: true })
  inReplyToMessageId: string | null;
}
