import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * A staff user: a member of one of the tenant's corps on the chat platform, as the console knows it
 * (chat-management-api.md, "Enterprise account (corp) and staff user links": WorkChatUserRelateDto). Customers add
 * staff users through contact ways; a staff user bound to a digital staff (`digitalStaffId`) has the AI reply to its
 * customers on its behalf. `workChatUserId` is the platform's userid, unique within (tenant, corp). `userId` is the
 * tenant's own id for the person (its console account or employee number), optional. Every index leads with
 * `tenant_id`; `corp_id` and `digital_staff_id` are plain uuid columns (no FK): the services keep them consistent.
 */
@Entity({ name: 'chat_work_user' })
@Index('ux_chat_work_user_tenant_corp_user', ['tenantId', 'corpId', 'workChatUserId'], { unique: true })
@Index('ix_chat_work_user_tenant_created', ['tenantId', 'createdAt'])
@Index('ix_chat_work_user_tenant_digital_staff', ['tenantId', 'digitalStaffId'])
export class WorkChatUserEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** Atrium's id of the corp (chat_work_corp.id) the staff user belongs to. */
  @Column({ type: 'uuid' })
  corpId: string;

  /** The platform's userid of the staff member (unique within the tenant's corp). */
  @Column({ type: 'varchar', length: 64 })
  workChatUserId: string;

  /** The tenant's own id of the person (console account, employee number), when it has one. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  userId: string | null;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 32, nullable: true })
  mobile: string | null;

  @Column({ type: 'varchar', length: 254, nullable: true })
  email: string | null;

  /** Whether the staff member is online (at work and taking chats). */
  @Column({ type: 'boolean', default: false })
  online: boolean;

  /** The digital staff (chat_digital_staff.id) bound to this staff user, or null. */
  @Column({ type: 'uuid', nullable: true })
  digitalStaffId: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
