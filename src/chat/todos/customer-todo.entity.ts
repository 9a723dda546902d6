import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** The states of a digital-staff customer to-do. */
export const CUSTOMER_TODO_STATUSES = ['open', 'processed'] as const;
export type CustomerTodoStatus = (typeof CUSTOMER_TODO_STATUSES)[number];

/**
 * A digital-staff customer to-do (chat-management-api.md, "Digital staff": processDigitalStaffCustomerTodo; issue 6):
 * a person must look at this customer — opened by the inbound pipeline when an intervention rule matches (or the AI
 * gives up), closed by an operator. At most one to-do per (tenant, source message); every index leads with `tenant_id`.
 */
@Entity({ name: 'chat_customer_todo' })
@Index('ux_chat_customer_todo_tenant_source_message', ['tenantId', 'sourceMessageId'], { unique: true, where: '"source_message_id" IS NOT NULL' })
@Index('ix_chat_customer_todo_tenant_status_created', ['tenantId', 'status', 'createdAt'])
@Index('ix_chat_customer_todo_tenant_contact', ['tenantId', 'contactId'])
export class CustomerTodoEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** The customer (chat_external_contact.id). */
  @Column({ type: 'uuid' })
  contactId: string;

  /** The digital staff answering the contact when the to-do was opened (chat_digital_staff.id), if any. */
  @Column({ type: 'uuid', nullable: true })
  digitalStaffId: string | null;

  /** The intervention rule that opened it (chat_intervention_rule.id), if any. */
  @Column({ type: 'uuid', nullable: true })
  ruleId: string | null;

  /** The inbound message that caused it (chat_message.id), if any; unique per tenant. */
  @Column({ type: 'uuid', nullable: true })
  sourceMessageId: string | null;

  /** Why a person must look at the customer. */
  @Column({ type: 'text' })
  reason: string;

  /** One of {@link CUSTOMER_TODO_STATUSES}. */
  @Column({ type: 'varchar', length: 16, default: 'open' })
  status: CustomerTodoStatus;

  /** Who processed it (the caller's subject), when processed. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  processedBy: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  processedAt: Date | null;

  /** The operator's note when processing. */
  @Column({ type: 'text', nullable: true })
  note: string | null;

  /** Whether processing switched the contact's AI replies back on. */
  @Column({ type: 'boolean', default: false })
  aiReEnabled: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
