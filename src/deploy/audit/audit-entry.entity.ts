import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** How a gateway call ended, as the audit records it. */
export type AuditOutcome = 'allowed' | 'refused' | 'failed';

/**
 * One call to the gateway (deployment-gateway.md, Events: every operation is recorded). Nothing secret is stored:
 * tokens appear only as their public prefix, commands with secret-looking values masked.
 */
@Entity({ name: 'deploy_audit_entry' })
@Index('ix_deploy_audit_entry_occurred', ['occurredAt', 'id'])
export class AuditEntryEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'timestamptz' })
  occurredAt: Date;

  @Column({ type: 'varchar', length: 16, nullable: true })
  tokenPrefix: string | null;

  @Column({ type: 'varchar', length: 128, nullable: true })
  agentId: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  namespace: string | null;

  /** e.g. `register`, `deploy`, `exec`, `admin.revoke-token` */
  @Column({ type: 'varchar', length: 48 })
  action: string;

  /** What the action was about: a deployment id, a path, a token prefix. */
  @Column({ type: 'text', nullable: true })
  target: string | null;

  @Column({ type: 'varchar', length: 16 })
  outcome: AuditOutcome;

  /** HTTP status returned. */
  @Column({ type: 'smallint' })
  status: number;

  @Column({ type: 'varchar', length: 64, nullable: true })
  clientAddress: string | null;

  @Column({ type: 'text', nullable: true })
  command: string | null;

  @Column({ type: 'integer', nullable: true })
  exitCode: number | null;

  /** Why it was refused or failed, or a short note. */
  @Column({ type: 'text', nullable: true })
  detail: string | null;
}
