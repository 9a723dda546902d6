import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { AiReplyStatus } from './pipeline.rules';

/** What asked for the reply: the inbound pipeline, or an operator (`ai-intervene`). */
export const AI_REPLY_TRIGGERS = ['inbound', 'operator'] as const;
export type AiReplyTrigger = (typeof AI_REPLY_TRIGGERS)[number];

/**
 * The reply state of one inbound customer message (issue 6, "The inbound pipeline"): written in the same
 * transaction that stores the inbound message, one per message (`ux_chat_ai_reply_inbound`), and moved by the reply
 * job: `queued` → `composing` (a worker run holds it: `workerId`, lease renewed by a heartbeat) → `sent` (the AI
 * message `replyMessageId` is written and its delivery queued) | `intervened` | `skipped` | `failed`; messages the
 * pipeline does not answer end at once as `skipped`, `intervened` or `out_of_hours` (with the out-of-hours message,
 * if one was sent). `reason` says why for every state but `sent`. See pipeline.rules.ts for the outcome mapping.
 *
 * `leaseUntil`: until when the queue or a worker run owns an open row; the sweep (AiReplySweeper) re-queues open rows
 * whose lease ran out (a killed process, a lost job). The sweep's partial index is the one index not led by
 * `tenant_id`: the sweep looks across tenants.
 */
@Entity({ name: 'chat_ai_reply' })
@Index('ux_chat_ai_reply_inbound', ['tenantId', 'inboundMessageId'], { unique: true })
@Index('ix_chat_ai_reply_contact_created', ['tenantId', 'contactId', 'createdAt'])
@Index('ix_chat_ai_reply_open_lease', ['leaseUntil'], { where: `"status" IN ('queued', 'composing')` })
export class ChatAiReplyEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** The inbound customer message (chat_message.id) this row is about. */
  @Column({ type: 'uuid' })
  inboundMessageId: string;

  /** The contact (chat_external_contact.id). */
  @Column({ type: 'uuid' })
  contactId: string;

  /** The digital staff that answers (chat_digital_staff.id), when one is bound. */
  @Column({ type: 'uuid', nullable: true })
  digitalStaffId: string | null;

  /** One of {@link AI_REPLY_TRIGGERS}. */
  @Column({ type: 'varchar', length: 16, default: 'inbound' })
  trigger: AiReplyTrigger;

  /** One of pipeline.rules.ts AI_REPLY_STATUSES. */
  @Column({ type: 'varchar', length: 16 })
  status: AiReplyStatus;

  /** The AI message sent (chat_message.id): the reply, or the out-of-hours message. */
  @Column({ type: 'uuid', nullable: true })
  replyMessageId: string | null;

  /** Worker runs that claimed the row so far (compose attempts, interrupted ones included). */
  @Column({ type: 'integer', default: 0 })
  attempts: number;

  /** Why it ended as it did (or why the last attempt failed), readable. */
  @Column({ type: 'text', nullable: true })
  reason: string | null;

  /** The worker run holding a `composing` row (random per run), or null. */
  @Column({ type: 'uuid', nullable: true })
  workerId: string | null;

  /** Until when the queue / worker run owns an open row; null on final rows. */
  @Column({ type: 'timestamptz', nullable: true })
  leaseUntil: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  /** When it reached a final state, or null. */
  @Column({ type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}
