import type { DeployPermission } from '../auth/deploy-principal';
import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A one-time permission to register one agent into an existing namespace (issue 12, item 3), issued by the owner.
 * Only the SHA-256 of the code is stored; the grant is addressed by its public `prefix`. Usable once, before
 * `expiresAt`, unless revoked.
 */
@Entity({ name: 'deploy_join_grant' })
@Index('ix_deploy_join_grant_namespace_created', ['namespace', 'createdAt'])
export class JoinGrantEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('ux_deploy_join_grant_prefix', { unique: true })
  @Column({ type: 'varchar', length: 16 })
  prefix: string;

  @Column({ type: 'char', length: 64 })
  secretHash: string;

  @Column({ type: 'varchar', length: 64 })
  namespace: string;

  /** Free text from the owner (who the grant is for). */
  @Column({ type: 'varchar', length: 200, nullable: true })
  note: string | null;

  /** Caps the joining agent's permissions; null = the server's defaults. */
  @Column({ type: 'text', array: true, nullable: true })
  permissions: DeployPermission[] | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz' })
  expiresAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  usedAt: Date | null;

  /** The agent that registered with it. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  usedByAgentId: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}
