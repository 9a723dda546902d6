import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A client of the built-in OAuth2 authorization server (client-credentials grant). A tenant client carries its
 * tenant (put into the access token's tenant claim) and the chat scopes it may ask for; a platform-admin client has
 * no tenant and the `platform:admin` scope. The secret is stored only as its SHA-256 hash (it is 256 random bits,
 * so a fast hash is enough) and shown once, when the client is created.
 */
@Entity({ name: 'chat_oauth_client' })
@Index('ix_chat_oauth_client_tenant_created', ['tenantId', 'createdAt'])
export class OAuthClientEntity {
  /** Public client id, `atc_<24 hex>`. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  clientId: string;

  /** The tenant (slug); null for a platform-admin client. */
  @Column({ type: 'varchar', length: 63, nullable: true })
  tenantId: string | null;

  /** Operator's label ("CRM sync", "Swagger"). */
  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** Scopes the client may request (chat-scopes.ts). */
  @Column({ type: 'text', array: true })
  scopes: string[];

  /** SHA-256 hex of the client secret. */
  @Column({ type: 'char', length: 64 })
  secretHash: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  /** Set when revoked: the client can get no more tokens (tokens already issued live until they expire). */
  @Column({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}
