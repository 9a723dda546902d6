import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * An uploaded evaluation file (issue 4: Files): metadata here, content in the file storage port under
 * `storageKey` (a random key, never derived from `name`). `categoryId` null = not in any category.
 */
@Entity({ name: 'eval_file' })
@Index('ix_eval_file_created', ['createdAt', 'id'])
@Index('ix_eval_file_category_created', ['categoryId', 'createdAt'])
@Index('ux_eval_file_storage_key', ['storageKey'], { unique: true })
export class StoredFileEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** Display name: the client's file name, cleaned by toDisplayFileName (no folders, no control characters). */
  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  /** Content length in bytes. */
  @Column({ type: 'bigint', transformer: { to: (value: number) => value, from: (value: string) => Number(value) } })
  sizeBytes: number;

  /** SHA-256 of the content, lowercase hex. */
  @Column({ type: 'char', length: 64 })
  sha256: string;

  /** Decided from the bytes at upload (src/common/storage/content-type.ts); served as is. */
  @Column({ type: 'varchar', length: 255 })
  contentType: string;

  @Column({ type: 'uuid', nullable: true })
  categoryId: string | null;

  /** Key of the content in the file storage port. */
  @Column({ type: 'varchar', length: 128 })
  storageKey: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
