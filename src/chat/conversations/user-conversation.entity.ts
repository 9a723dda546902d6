import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { ConversationStatus } from './conversation-state.rules';

/**
 * A conversation of a tenant (chat-management-api.md, Conversations: UserConversationDTO): one stretch of talk
 * between a customer (an external contact, chat_external_contact.id), the digital staff answering them
 * (chat_digital_staff.id) and the conversation group whose configuration applies (chat_conversation_group.id).
 * Its status moves pending → active → terminated (conversation-state.rules.ts); `terminated` is final.
 *
 * At most one open (not terminated) conversation per contact: a partial unique index backs the rule, so the reply
 * pipeline always knows "the" conversation of a customer. Every index leads with `tenant_id`.
 */
@Entity({ name: 'chat_user_conversation' })
@Index('ux_chat_user_conversation_open_contact', ['tenantId', 'contactId'], { unique: true, where: `"status" <> 'terminated'` })
@Index('ix_chat_user_conversation_tenant_contact_created', ['tenantId', 'contactId', 'createdAt'])
@Index('ix_chat_user_conversation_tenant_group_status', ['tenantId', 'conversationGroupId', 'status'])
@Index('ix_chat_user_conversation_tenant_status_created', ['tenantId', 'status', 'createdAt'])
@Index('ix_chat_user_conversation_tenant_created', ['tenantId', 'createdAt'])
export class UserConversationEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** The customer (chat_external_contact.id, the spec's contactId). */
  @Column({ type: 'uuid' })
  contactId: string;

  /** The digital staff answering (chat_digital_staff.id). */
  @Column({ type: 'uuid' })
  digitalStaffId: string;

  /** The conversation group whose configuration applies (chat_conversation_group.id). */
  @Column({ type: 'uuid' })
  conversationGroupId: string;

  /** `pending`, `active` or `terminated` (conversation-state.rules.ts). */
  @Column({ type: 'varchar', length: 16 })
  status: ConversationStatus;

  /** What the conversation is about, as an operator or the pipeline names it. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  subject: string | null;

  /** Operator's note. */
  @Column({ type: 'varchar', length: 500, nullable: true })
  remark: string | null;

  /** When it became active, or null while pending (or terminated without ever being active). */
  @Column({ type: 'timestamptz', nullable: true })
  activatedAt: Date | null;

  /** When it was terminated, or null. */
  @Column({ type: 'timestamptz', nullable: true })
  terminatedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
