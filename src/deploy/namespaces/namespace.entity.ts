import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A claimed namespace (issue 12, item 3; deployment-gateway.md: "the user's contactId is the namespace"). The first
 * registration for a contactId creates it; every later registration into it needs a join grant from the owner.
 * Names are unique case-insensitively (`ux_deploy_namespace_lower_name`, defined by the migration), so `Alice` can't
 * be claimed beside `alice` and pass for it in a URL.
 */
@Entity({ name: 'deploy_namespace' })
@Index('ux_deploy_namespace_lower_name', { synchronize: false })
export class NamespaceEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  name: string;

  /** The agent whose registration claimed it. */
  @Column({ type: 'varchar', length: 128 })
  claimedByAgentId: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  /**
   * Its live (not revoked) agent tokens: kept exact by triggers on `deploy_agent_token` in the writer's transaction
   * (migration 1795600740000), so the namespace list never counts tokens (issue 23). Written by the database only.
   */
  @Column({ type: 'integer', default: 0, insert: false, update: false })
  liveTokens: number;
}
