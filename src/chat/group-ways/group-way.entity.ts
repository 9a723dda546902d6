import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * A group way (group join scene code) of a tenant's corp (chat-management-api.md, "Group way"): a QR code or
 * mini-program button on the chat platform that lets customers join one of the customer group chats `chatIds`
 * (filled in order; with `autoCreateRoom` the platform opens a new group when all are full).
 *
 * - `id` is a bigint identity (the spec's int64 ids); TypeORM reads it as a string, the DTOs expose a JSON number.
 * - `state` is echoed by the platform when a customer joins through the way; unique per (tenant, corp) when set.
 * - `conversationGroupId` names the conversation group (automation flow) customers joining through it enter.
 * - Default: at most one default group way per scope (`defaultScope`: `ds:<digital staff id>` when the way has a
 *   digital staff, else `corp:<corp id>`); `isDefault` ⇔ `defaultScope` set; a partial unique index backs it.
 * Every index leads with `tenant_id`; `corp_id` and `digital_staff_id` are plain uuid columns (no FK).
 */
@Entity({ name: 'chat_group_way' })
@Index('ux_chat_group_way_tenant_corp_state', ['tenantId', 'corpId', 'state'], { unique: true, where: '"state" IS NOT NULL' })
@Index('ux_chat_group_way_tenant_corp_config', ['tenantId', 'corpId', 'configId'], { unique: true })
@Index('ux_chat_group_way_tenant_default_scope', ['tenantId', 'defaultScope'], { unique: true, where: '"is_default"' })
@Index('ix_chat_group_way_tenant_created', ['tenantId', 'createdAt', 'id'])
@Index('ix_chat_group_way_tenant_corp_created', ['tenantId', 'corpId', 'createdAt', 'id'])
@Index('ix_chat_group_way_tenant_conversation_group', ['tenantId', 'conversationGroupId'])
export class GroupWayEntity {
  /** int64 identity; a numeric string as TypeORM reads bigint. */
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** Atrium's id of the corp (chat_work_corp.id). */
  @Column({ type: 'uuid' })
  corpId: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** Platform scene: 1 = mini-program button, 2 = QR code. */
  @Column({ type: 'smallint' })
  scene: number;

  /** The scene parameter echoed when a customer joins (up to 30 characters); unique per corp when set. */
  @Column({ type: 'varchar', length: 30, nullable: true })
  state: string | null;

  /** Platform ids of the customer group chats to fill, in order (1..5). */
  @Column({ type: 'jsonb' })
  chatIds: string[];

  /** The conversation group customers joining through this way enter, or null. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  conversationGroupId: string | null;

  /** The digital staff (chat_digital_staff.id) serving the groups of this way, or null. */
  @Column({ type: 'uuid', nullable: true })
  digitalStaffId: string | null;

  /** The platform's config id of the way. */
  @Column({ type: 'varchar', length: 64 })
  configId: string;

  /** URL of the QR code image (the platform's value), or null for a mini-program button. */
  @Column({ type: 'text', nullable: true })
  qrCode: string | null;

  /** Note kept on the platform (up to 30 characters). */
  @Column({ type: 'varchar', length: 30, nullable: true })
  remark: string | null;

  /** The platform opens a new group chat when all of `chatIds` are full. */
  @Column({ type: 'boolean', default: false })
  autoCreateRoom: boolean;

  /** Name prefix of auto-created group chats. */
  @Column({ type: 'varchar', length: 40, nullable: true })
  roomBaseName: string | null;

  /** First number suffix of auto-created group chats. */
  @Column({ type: 'integer', nullable: true })
  roomBaseId: number | null;

  @Column({ type: 'boolean', default: false })
  isDefault: boolean;

  /** The scope the way is the default of while `isDefault` (see the class comment), else null. */
  @Column({ type: 'varchar', length: 120, nullable: true })
  defaultScope: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
