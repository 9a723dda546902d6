import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * A digital staff (AI employee) of a tenant (chat-management-api.md, "Digital staff": ChatStaffDto). Staff users
 * bound to it (chat_work_user.digital_staff_id) have it answer their customers, with `persona` as the system prompt,
 * within its service time (chat_digital_staff_service_time). The name is unique within the tenant. Every index leads
 * with `tenant_id`.
 */
@Entity({ name: 'chat_digital_staff' })
@Index('ux_chat_digital_staff_tenant_name', ['tenantId', 'name'], { unique: true })
@Index('ix_chat_digital_staff_tenant_created', ['tenantId', 'createdAt'])
export class DigitalStaffEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** The system prompt of its replies: who it is, its tone, what it may and may not do. */
  @Column({ type: 'text' })
  persona: string;

  /** Operator's description. */
  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  /** First message sent to a customer who adds a bound staff user, or null for none. */
  @Column({ type: 'text', nullable: true })
  welcomeMessage: string | null;

  /** A disabled digital staff keeps its bindings but does not reply. */
  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
