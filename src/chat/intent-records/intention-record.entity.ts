import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** Review states of an intent record: detected and not reviewed, confirmed by an operator, or rejected as wrong. */
export const INTENTION_RECORD_STATUSES = ['open', 'confirmed', 'rejected'] as const;
export type IntentionRecordStatus = (typeof INTENTION_RECORD_STATUSES)[number];

/** Who wrote an intent record: the inbound pipeline (a detected intent) or an operator. */
export const INTENTION_RECORD_SOURCES = ['pipeline', 'operator'] as const;
export type IntentionRecordSource = (typeof INTENTION_RECORD_SOURCES)[number];

/**
 * An intent detected in a customer's message (chat-management-api.md, "Intent record": ModifyCustomerIntentionRecord
 * / CustomerIntentionRecordDto; issue 6, "The inbound pipeline": "intent records are written when an intent is
 * detected"). Operators review it (`status`, `operatorNote`). One record per (message, intent): the unique index
 * makes the pipeline's write idempotent under job retry (records without a message id are not limited). Every index
 * leads with `tenant_id`.
 */
@Entity({ name: 'chat_intention_record' })
@Index('ux_chat_intention_record_message_intent', ['tenantId', 'messageId', 'intentName'], { unique: true })
@Index('ix_chat_intention_record_contact_created', ['tenantId', 'contactId', 'createdAt'])
@Index('ix_chat_intention_record_tenant_status_created', ['tenantId', 'status', 'createdAt'])
export class IntentionRecordEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** The contact (chat_external_contact.id) whose message showed the intent. */
  @Column({ type: 'uuid' })
  contactId: string;

  /** The intent's name, as the detector or operator named it. */
  @Column({ type: 'varchar', length: 100 })
  intentName: string;

  /** The detector's confidence, 0..1; null when an operator recorded it. */
  @Column({ type: 'double precision', nullable: true })
  confidence: number | null;

  /** Id of the message the intent was detected in, or null. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  messageId: string | null;

  /** One of {@link INTENTION_RECORD_STATUSES}. */
  @Column({ type: 'varchar', length: 16, default: 'open' })
  status: IntentionRecordStatus;

  /** One of {@link INTENTION_RECORD_SOURCES}. */
  @Column({ type: 'varchar', length: 16 })
  source: IntentionRecordSource;

  /** The operator's note on the record, or null. */
  @Column({ type: 'varchar', length: 1000, nullable: true })
  operatorNote: string | null;

  /** When the status last became confirmed or rejected; null while open. */
  @Column({ type: 'timestamptz', nullable: true })
  reviewedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
