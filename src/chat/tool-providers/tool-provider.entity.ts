import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { ToolOperation } from './tool-operations.rules';
import { SEALED_TEXT } from '../../database/sealed-columns';

/** How calls to a tool API provider authenticate. */
export const TOOL_AUTH_TYPES = ['none', 'bearer', 'header', 'basic'] as const;
export type ToolAuthType = (typeof TOOL_AUTH_TYPES)[number];

/**
 * A tool API provider of a tenant (chat-management-api.md, "Tool API provider": CreateOrUpdateToolApiProviderRequest
 * / ToolApiProviderDTO; issue 6, "Configuration resources"): an HTTP API whose operations (each with a JSON Schema of
 * its input) the digital staff's model may call as functions. Calls go through ToolProvidersService.call, with the
 * provider's timeout and never to loopback, private, link-local or metadata addresses unless configuration allows
 * it. `authSecret` (bearer token, header value or basic password) is write-only: never returned or logged. The name
 * is unique within the tenant; every index leads with `tenant_id`.
 */
@Entity({ name: 'chat_tool_provider' })
@Index('ux_chat_tool_provider_tenant_name', ['tenantId', 'name'], { unique: true })
@Index('ix_chat_tool_provider_tenant_created', ['tenantId', 'createdAt'])
export class ToolProviderEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  /** http(s) URL the operations' paths are appended to (no credentials, query or fragment). */
  @Column({ type: 'varchar', length: 2048 })
  baseUrl: string;

  /** One of {@link TOOL_AUTH_TYPES}. */
  @Column({ type: 'varchar', length: 16 })
  authType: ToolAuthType;

  /** Header that carries the secret when `authType` is `header`. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  authHeaderName: string | null;

  /** User name of `basic` authentication. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  authUsername: string | null;

  /** Bearer token, header value or basic password: write-only, sealed at rest (issue 19). */
  @Column({ type: 'text', nullable: true, transformer: SEALED_TEXT })
  authSecret: string | null;

  /** The operations the model may call (validated with Ajv when written; see tool-operations.rules.ts). */
  @Column({ type: 'jsonb' })
  operations: ToolOperation[];

  /** Time limit of one call (connection, redirects and reading the reply), ms. */
  @Column({ type: 'integer' })
  timeoutMs: number;

  /** A disabled provider is kept but its operations cannot be called. */
  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
