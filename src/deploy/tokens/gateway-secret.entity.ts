import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** Names of the gateway's server-side secrets. */
export type GatewaySecretName = 'owner-token' | 'registration-key';

/**
 * A server-side secret of the gateway (the owner credential, the registration key), stored only as its SHA-256.
 * Generated at first start when not configured, so a fresh install is never open.
 */
@Entity({ name: 'deploy_gateway_secret' })
export class GatewaySecretEntity {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  name: GatewaySecretName;

  @Column({ type: 'char', length: 64 })
  secretHash: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
