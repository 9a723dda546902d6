import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { DeployPermission } from '../auth/deploy-principal';

/**
 * An agent's token (deployment-gateway.md, Resources: Token). Only the SHA-256 of the secret is stored; the token
 * is addressed by its public `prefix` (also the first characters of the token itself).
 */
@Entity({ name: 'deploy_agent_token' })
@Index('ix_deploy_agent_token_agent', ['agentId'])
@Index('ix_deploy_agent_token_created', ['createdAt'])
export class AgentTokenEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('ux_deploy_agent_token_prefix', { unique: true })
  @Column({ type: 'varchar', length: 16 })
  prefix: string;

  @Column({ type: 'char', length: 64 })
  secretHash: string;

  @Column({ type: 'varchar', length: 128 })
  agentId: string;

  @Column({ type: 'varchar', length: 128, nullable: true })
  instanceName: string | null;

  /** The contactId this token may act on. */
  @Column({ type: 'varchar', length: 64 })
  namespace: string;

  @Column({ type: 'text', array: true })
  permissions: DeployPermission[];

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}
