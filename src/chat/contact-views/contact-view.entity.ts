import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { ContactViewFilter, ContactViewSort } from './contact-view-filter.rules';

/**
 * A saved filter of the operator's contact list (chat-management-api.md, Contact view: UserChatContactViewDto).
 * It belongs to the access token's subject that created it (`owner_subject`, the client id for client-credentials
 * tokens); `shared` views are visible (read-only) to every caller of the tenant. Name unique per owner. Every index
 * leads with `tenant_id`.
 */
@Entity({ name: 'chat_contact_view' })
@Index('ux_chat_contact_view_owner_name', ['tenantId', 'ownerSubject', 'name'], { unique: true })
@Index('ix_chat_contact_view_tenant_shared', ['tenantId', 'shared', 'createdAt'])
export class ContactViewEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** `sub` of the token that created the view. */
  @Column({ type: 'varchar', length: 255 })
  ownerSubject: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  /** Validated filter (see {@link ContactViewFilter}). */
  @Column({ type: 'jsonb' })
  filter: ContactViewFilter;

  /** Sort keys, `[]` for the list's default order. */
  @Column({ type: 'jsonb' })
  sort: ContactViewSort[];

  @Column({ type: 'boolean', default: false })
  shared: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
