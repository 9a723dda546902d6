import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * A script category (chat-management-api.md, Scripts: ScriptCategoryDtoV1): a node of the tenant's category tree.
 * `parent_id` null is a root. Sibling names are unique and the tree has no cycles and a bounded depth: the service
 * keeps that under a per-tenant lock (a plain uuid column, no FK). Every index leads with `tenant_id`.
 */
@Entity({ name: 'chat_script_category' })
@Index('ix_chat_script_category_tenant_parent', ['tenantId', 'parentId'])
export class ScriptCategoryEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** The parent category (chat_script_category.id), or null for a root. */
  @Column({ type: 'uuid', nullable: true })
  parentId: string | null;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** Position among siblings, ascending (then by name). */
  @Column({ type: 'integer', default: 0 })
  sortOrder: number;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
