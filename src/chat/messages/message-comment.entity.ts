import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * An operator's review of an AI message (chat-management-api.md, Contact message: MessageCommentRequest,
 * MessageCommentDto). One comment per (message, reviewer): posting again replaces the reviewer's comment. The
 * reviewer is the access token's subject.
 */
@Entity({ name: 'chat_message_comment' })
@Index('ux_chat_message_comment_reviewer', ['tenantId', 'messageId', 'reviewer'], { unique: true })
export class MessageCommentEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** The reviewed message (chat_message.id). */
  @Column({ type: 'uuid' })
  messageId: string;

  /** Who reviewed: the token's subject. */
  @Column({ type: 'varchar', length: 255 })
  reviewer: string;

  /** 1 (bad) .. 5 (excellent), or null. */
  @Column({ type: 'smallint', nullable: true })
  rating: number | null;

  /** The review text, or null. */
  @Column({ type: 'text', nullable: true })
  content: string | null;

  /** Review tags (e.g. `wrong-fact`, `tone`). */
  @Column({ type: 'jsonb' })
  tags: string[];

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
