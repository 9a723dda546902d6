import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export const TENANT_STATUSES = ['active', 'disabled'] as const;
export type TenantStatus = (typeof TENANT_STATUSES)[number];

/**
 * A tenant of the chat wing (issue 5, Tenancy): created by a platform administrator; its id is the slug in
 * `/api/{tenant}/...` and the value of the access tokens' tenant claim. Every other chat row carries it as
 * `tenant_id`. A disabled tenant keeps its data, but no chat route answers for it and the built-in authorization
 * server issues no more tokens for its clients.
 */
@Entity({ name: 'chat_tenant' })
export class TenantEntity {
  /** The slug (tenant-slug.ts). */
  @PrimaryColumn({ type: 'varchar', length: 63 })
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 16, default: 'active' })
  status: TenantStatus;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
