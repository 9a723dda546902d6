import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A tag on a contact as stored (the platform's follow tags): corp tags (type 1) carry ids, personal tags (type 2) only names. */
export interface ExternalContactTag {
  /** The platform's corp tag id (type 1). */
  tagId?: string;
  tagName?: string;
  /** The platform's id of the tag's group (corp tags). */
  groupId?: string;
  /** Name of the tag's group (corp tags). */
  groupName?: string;
  /** 1 corp tag, 2 personal tag. */
  type: 1 | 2;
}

/**
 * Named customer profiles of a contact (chat-management-api.md, Customer profile: `{T}/v1/customers/profiles/{name}`
 * and the partner customer info): profile name → free-form JSON object. Partner info is merged under `partner`.
 */
export type ExternalContactProfiles = Record<string, Record<string, unknown>>;

/**
 * An external contact (customer) as one staff member has them (chat-management-api.md, External contact:
 * ChatContactsExternalDto, ExternalContactDtoV1). One row per (corp, customer, staff member), as on the platform
 * where each staff member keeps their own remark, tags and "follow" relation. `id` is the spec's `contactId` /
 * `chatContactId`. `state` is the scene parameter of the contact way the customer last came through (the "last
 * state"), `stateAt` when it was set (added through a way, or changed by batchChangeState).
 *
 * Every index leads with `tenant_id` (DESIGN.md, Persistence); the list indexes serve the paged lists at 1,000,000
 * rows (staff member's contacts newest first, by last state and time, by open id, by external user id).
 */
@Entity({ name: 'chat_external_contact' })
@Index('ux_chat_external_contact_relation', ['tenantId', 'corpId', 'externalUserId', 'workChatUserId'], { unique: true })
// These three sort DESC NULLS LAST and INCLUDE filter columns, which TypeORM cannot express: defined in migration
// 1795405000000-ChatListIndexes, left alone by schema sync.
@Index('ix_chat_external_contact_staff_created', { synchronize: false })
@Index('ix_chat_external_contact_state_at', { synchronize: false })
@Index('ix_chat_external_contact_corp_state_at', { synchronize: false })
@Index('ix_chat_external_contact_open_id', ['tenantId', 'openId'])
@Index('ix_chat_external_contact_external_user', ['tenantId', 'externalUserId'])
@Index('ix_chat_external_contact_tenant_created', ['tenantId', 'createdAt'])
export class ExternalContactEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** Atrium's corp record (chat_work_corp.id). */
  @Column({ type: 'uuid' })
  corpId: string;

  /** The platform's id of the customer (`external_userid`). */
  @Column({ type: 'varchar', length: 64 })
  externalUserId: string;

  /** The customer's open id in the tenant's official account / mini program, when known. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  openId: string | null;

  /** The customer's union id on the platform's chat app, when the platform gives it. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  unionId: string | null;

  /** The staff member (platform userid) the customer is added to. */
  @Column({ type: 'varchar', length: 64 })
  workChatUserId: string;

  /** The customer's own name on the platform. */
  @Column({ type: 'varchar', length: 128 })
  name: string;

  @Column({ type: 'text', nullable: true })
  avatarUrl: string | null;

  /** 1 personal chat-app user, 2 user of another enterprise. */
  @Column({ type: 'smallint', default: 1 })
  type: number;

  /** 0 unknown, 1 male, 2 female. */
  @Column({ type: 'smallint', default: 0 })
  gender: number;

  /** The customer's enterprise (type 2), as the platform gives it. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  customerCorpName: string | null;

  /** The staff member's remark (name the staff member gave the customer), up to 20 characters on the platform. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  remark: string | null;

  /** The staff member's description of the customer (up to 150 characters on the platform). */
  @Column({ type: 'varchar', length: 255, nullable: true })
  description: string | null;

  /** The customer's company as remarked by the staff member. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  remarkCompany: string | null;

  /** The customer's mobile (the first remark mobile). */
  @Column({ type: 'varchar', length: 32, nullable: true })
  mobile: string | null;

  /** Tags as this staff member sees them. */
  @Column({ type: 'jsonb' })
  tags: ExternalContactTag[];

  /** The contact way state the customer last came through ("last state"), or null. */
  @Column({ type: 'varchar', length: 30, nullable: true })
  state: string | null;

  /** When `state` was last set (ms precision). */
  @Column({ type: 'timestamptz', nullable: true })
  stateAt: Date | null;

  /** How the customer was added (the platform's add_way: 1 QR code, 0 unknown …). */
  @Column({ type: 'smallint', default: 0 })
  addWay: number;

  /** When the customer added the staff member on the platform. */
  @Column({ type: 'timestamptz', nullable: true })
  addedAt: Date | null;

  /** Whether the digital staff replies to this customer (AI reply switch). */
  @Column({ type: 'boolean', default: true })
  aiEnabled: boolean;

  /** Named profiles (see {@link ExternalContactProfiles}); `{}` when none. */
  @Column({ type: 'jsonb' })
  profile: ExternalContactProfiles;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  /** Last message in either direction (maintained by the messages area), or null. */
  @Column({ type: 'timestamptz', nullable: true })
  lastMessageAt: Date | null;

  /**
   * An evaluation sandbox contact (src/chat/sandbox: created for an evaluation run's case, never by the platform),
   * not a real customer: its messages are never sent to the platform (MessageDelivery marks them `sent`) and it is
   * never synced; operator lists leave it out.
   */
  @Column({ type: 'boolean', default: false })
  sandbox: boolean;
}
