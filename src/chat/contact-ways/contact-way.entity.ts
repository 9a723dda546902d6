import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * A contact way (scene code) of a tenant's corp (chat-management-api.md, "Contact way (scene code)"): a QR code or
 * mini-program button on the chat platform that customers scan or tap to add one of `workChatUserIds`. One row
 * backs all three API families (`{T}/v1/chat/contact/way` rich DTOs, `{T}/v1/workChat/contact/way`, console
 * `{C}/workChat/contactWay`).
 *
 * - `id` is a bigint identity (the spec's int64 ids); TypeORM reads it as a string, the DTOs expose a JSON number.
 * - `state` is the scene parameter the platform echoes back when a customer adds through the way; unique per
 *   (tenant, corp) when set, so an added customer is attributed to exactly one way.
 * - `configId` / `qrCode` are the platform's (createContactWay / getContactWay).
 * - Default: at most one default way per scope (`defaultScope`: `ds:<digital staff id>` when the way has a digital
 *   staff, else `user:<corp id>:<platform userid>` of its single staff user); `isDefault` ⇔ `defaultScope` set. A
 *   partial unique index backs the rule; setDefault also serialises on the scope (contact-ways.service.ts).
 * - `hidden` ways are left out of lists unless asked for, and cannot be the default.
 * Every index leads with `tenant_id`; `corp_id` and `digital_staff_id` are plain uuid columns (no FK).
 */
@Entity({ name: 'chat_contact_way' })
@Index('ux_chat_contact_way_tenant_corp_state', ['tenantId', 'corpId', 'state'], { unique: true, where: '"state" IS NOT NULL' })
@Index('ux_chat_contact_way_tenant_corp_config', ['tenantId', 'corpId', 'configId'], { unique: true })
@Index('ux_chat_contact_way_tenant_default_scope', ['tenantId', 'defaultScope'], { unique: true, where: '"is_default"' })
@Index('ix_chat_contact_way_tenant_created', ['tenantId', 'createdAt', 'id'])
// (tenant_id, corp_id, created_at, id) INCLUDE (hidden, name), which TypeORM cannot express: defined in migration
// 1795405000000-ChatListIndexes, left alone by schema sync.
@Index('ix_chat_contact_way_tenant_corp_created', { synchronize: false })
@Index('ix_chat_contact_way_tenant_relevance', ['tenantId', 'relevanceCode'])
@Index('ix_chat_contact_way_tenant_digital_staff', ['tenantId', 'digitalStaffId'])
export class ContactWayEntity {
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

  /** Platform type: 1 = one staff user, 2 = several (the platform picks one). */
  @Column({ type: 'smallint' })
  type: number;

  /** Platform scene: 1 = mini-program button, 2 = QR code. */
  @Column({ type: 'smallint' })
  scene: number;

  /** The scene parameter echoed in the customer-added event (up to 30 characters); unique per corp when set. */
  @Column({ type: 'varchar', length: 30, nullable: true })
  state: string | null;

  /** Platform userids of the staff users customers add through this way. */
  @Column({ type: 'jsonb' })
  workChatUserIds: string[];

  /** The digital staff (chat_digital_staff.id) answering customers who come through this way, or null. */
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

  /** Customers add without the staff user confirming. */
  @Column({ type: 'boolean', default: true })
  skipVerify: boolean;

  /** Channel (campaign, store, poster …) the way is published on. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  channelName: string | null;

  /** The tenant's own business code the way relates to (a store, an order form …). */
  @Column({ type: 'varchar', length: 64, nullable: true })
  relevanceCode: string | null;

  @Column({ type: 'boolean', default: false })
  isDefault: boolean;

  /** The scope the way is the default of while `isDefault` (see the class comment), else null. */
  @Column({ type: 'varchar', length: 120, nullable: true })
  defaultScope: string | null;

  @Column({ type: 'boolean', default: false })
  hidden: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
