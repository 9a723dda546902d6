import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** How the digital staff answers in the conversations of a group. */
export const REPLY_MODES = ['auto', 'suggest', 'off'] as const;
/**
 * - `auto`: the digital staff's reply is sent to the customer.
 * - `suggest`: the reply is drafted for an operator to review and send; nothing goes out on its own.
 * - `off`: no AI reply at all (triggers still run).
 */
export type ReplyMode = (typeof REPLY_MODES)[number];

/**
 * A conversation group of a tenant (chat-management-api.md, Conversations: UserConversationGroupDTO): the
 * configuration of how the digital staff converses in the conversations placed in it — a system prompt addition
 * appended to the digital staff's persona, reply settings, and (as children) event definitions and triggers.
 * Conversations (chat_user_conversation), channels (chat_channel.conversation_group_id), group ways
 * (chat_group_way.conversation_group_id) and switch-group triggers reference it by id (no FK); it cannot be deleted
 * while any of them does. The name is unique within the tenant. Every index leads with `tenant_id`.
 */
@Entity({ name: 'chat_conversation_group' })
@Index('ux_chat_conversation_group_tenant_name', ['tenantId', 'name'], { unique: true })
@Index('ix_chat_conversation_group_tenant_created', ['tenantId', 'createdAt'])
export class ConversationGroupEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  /** Appended to the digital staff's persona (system prompt) in this group's conversations, or null. */
  @Column({ type: 'text', nullable: true })
  systemPrompt: string | null;

  /** See {@link ReplyMode}. */
  @Column({ type: 'varchar', length: 16, default: 'auto' })
  replyMode: ReplyMode;

  /** Seconds to wait after a customer message before replying, so several quick messages get one reply. */
  @Column({ type: 'integer', default: 0 })
  replyDelaySeconds: number;

  /** How many of the latest messages of the conversation go into the model's context. */
  @Column({ type: 'integer', default: 20 })
  historyMessageCount: number;

  /** Longest reply, characters; null = no limit beyond the platform's. */
  @Column({ type: 'integer', nullable: true })
  maxReplyChars: number | null;

  /** A disabled group keeps its conversations, but no new conversation may enter it and its triggers do not run. */
  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
