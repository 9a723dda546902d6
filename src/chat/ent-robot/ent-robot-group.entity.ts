import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { SEALED_TEXT } from '../../database/sealed-columns';

/**
 * An enterprise robot chat group of a tenant (chat-management-api.md, "Enterprise robot": EntRobotChatGroupDto): a
 * group chat on the enterprise chat platform with a webhook robot added to it, registered by its webhook key so that
 * `POST {T}/v1/entrobot/message/sendMsg` can post into it. The webhook key is the robot's only credential: it is
 * stored as given (needed to send), write-only (never returned or logged; responses carry `keyHint`). The name is
 * unique within the tenant. Every index leads with `tenant_id`.
 */
@Entity({ name: 'chat_ent_robot_group' })
@Index('ux_chat_ent_robot_group_tenant_name', ['tenantId', 'name'], { unique: true })
@Index('ix_chat_ent_robot_group_tenant_created', ['tenantId', 'createdAt'])
export class EntRobotGroupEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** The `key` of the robot's webhook address; a secret (write-only), sealed at rest (issue 19). */
  @Column({ type: 'text', transformer: SEALED_TEXT })
  webhookKey: string;

  /** Masked form of the key shown to operators (`****` + its last 4 characters). */
  @Column({ type: 'varchar', length: 16 })
  keyHint: string;

  /** The corp the group chat belongs to (chat_work_corp.id), or null; informational (a robot needs no corp credentials). */
  @Column({ type: 'uuid', nullable: true })
  corpId: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  /** A disabled group is kept but refuses sends (409). */
  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
