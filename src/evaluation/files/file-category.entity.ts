import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * A folder of the evaluation file tree (issue 4: Files). Categories nest through `parentId` (null = top level).
 * Sibling names are unique ignoring case: `nameKey` is the name in NFC, lowercased, and two partial unique indexes
 * cover top-level categories and children (PostgreSQL treats NULL parents as distinct otherwise).
 * No foreign keys (as elsewhere in the wing): the service keeps the tree whole under a transaction-scoped lock.
 */
@Entity({ name: 'eval_file_category' })
@Index('ux_eval_file_category_root_name', ['nameKey'], { unique: true, where: '"parent_id" IS NULL' })
@Index('ux_eval_file_category_sibling_name', ['parentId', 'nameKey'], { unique: true, where: '"parent_id" IS NOT NULL' })
export class FileCategoryEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** `name` in NFC, lowercased: the sibling-uniqueness key. */
  @Column({ type: 'varchar', length: 200 })
  nameKey: string;

  /** Parent category; null = top level. */
  @Column({ type: 'uuid', nullable: true })
  parentId: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
