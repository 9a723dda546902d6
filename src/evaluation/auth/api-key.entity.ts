import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Where a named key came from: seeded from EVAL_API_KEYS at start, or created through the API/CLI. */
export type ApiKeySource = 'env' | 'api';

/**
 * A named evaluation API key (issue 19 item 6). Only the key's SHA-256 is stored; the key itself is shown once at
 * creation. A revoked key keeps its row (and name) for the record and is refused from the next request on.
 */
@Entity({ name: 'eval_api_key' })
@Index('ux_eval_api_key_name', ['name'], { unique: true })
@Index('ux_eval_api_key_hash', ['keyHash'], { unique: true })
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** API_KEY_NAME_PATTERN; the caller acts as `api-key:<name>`. */
  @Column({ type: 'varchar', length: 64 })
  name: string;

  /** SHA-256 of the key, lowercase hex. */
  @Column({ type: 'varchar', length: 64 })
  keyHash: string;

  /** May manage API keys (create, list, revoke); every key may use the other evaluation routes. */
  @Column({ type: 'boolean' })
  admin: boolean;

  @Column({ type: 'varchar', length: 8 })
  source: ApiKeySource;

  /** Subject that created it (`session:admin`, `api-key:<name>`); null for seeded keys. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  /** Last accepted use, written at most once a minute. */
  @Column({ type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @Column({ type: 'varchar', length: 128, nullable: true })
  revokedBy: string | null;
}
