import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Outcome of one robot send: `sent` (the platform accepted it) or `failed` (the platform refused or failed). */
export const ENT_ROBOT_SEND_STATUSES = ['sent', 'failed'] as const;
export type EntRobotSendStatus = (typeof ENT_ROBOT_SEND_STATUSES)[number];

/**
 * One message sent (or attempted) through an enterprise robot group, for operators: which group, type, length,
 * mentions, outcome and the platform's error. The content itself is not kept (only its length). Rows of a deleted
 * group are deleted with it. Every index leads with `tenant_id`.
 */
@Entity({ name: 'chat_ent_robot_message_log' })
@Index('ix_chat_ent_robot_message_log_tenant_group_created', ['tenantId', 'groupId', 'createdAt'])
export class EntRobotMessageLogEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** chat_ent_robot_group.id. */
  @Column({ type: 'uuid' })
  groupId: string;

  /** `text` or `markdown`. */
  @Column({ type: 'varchar', length: 16 })
  msgType: string;

  /** Length of the content in UTF-8 bytes (the platform's unit). */
  @Column({ type: 'integer' })
  contentBytes: number;

  /** Number of mentioned user ids plus mobiles. */
  @Column({ type: 'integer' })
  mentionCount: number;

  @Column({ type: 'varchar', length: 16 })
  status: EntRobotSendStatus;

  /** The platform's errcode when it refused, else null. */
  @Column({ type: 'integer', nullable: true })
  platformErrorCode: number | null;

  /** The problem detail of the failure (free of secrets), else null. */
  @Column({ type: 'text', nullable: true })
  platformError: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
