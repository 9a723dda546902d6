import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { SEALED_TEXT } from '../../database/sealed-columns';

/**
 * A tenant's link to an enterprise account (corp) on the chat platform (chat-management-api.md, "Enterprise account
 * (corp) and staff user links": WorkChatCorpRelateDto). Other chat paths name a corp by `corpName`
 * (`?corpName=`, `/api/v1/workChat/customer/{corpName}/remark`) or by its platform id (`workChatCorpId`,
 * `/api/v1/workChat/tag/{workCorpId}/...`), so both are unique within a tenant. The app secret and callback keys
 * are write-only: used to call the platform, never returned or logged. Every index leads with `tenant_id`.
 */
@Entity({ name: 'chat_work_corp' })
@Index('ux_chat_work_corp_tenant_name', ['tenantId', 'corpName'], { unique: true })
@Index('ux_chat_work_corp_tenant_platform_id', ['tenantId', 'workChatCorpId'], { unique: true })
@Index('ix_chat_work_corp_tenant_created', ['tenantId', 'createdAt'])
export class WorkChatCorpEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** The corp's name as operators use it (unique in the tenant). */
  @Column({ type: 'varchar', length: 100 })
  corpName: string;

  /** The platform's corp id (`corpid`, unique in the tenant). */
  @Column({ type: 'varchar', length: 64 })
  workChatCorpId: string;

  /** The platform application's agent id, when the corp is served through a self-built application. */
  @Column({ type: 'varchar', length: 32, nullable: true })
  agentId: string | null;

  /** The application's secret (`corpsecret`), write-only, sealed at rest (issue 19). */
  @Column({ type: 'text', nullable: true, transformer: SEALED_TEXT })
  secret: string | null;

  /** Token of the platform's event callbacks, write-only, sealed at rest. */
  @Column({ type: 'text', nullable: true, transformer: SEALED_TEXT })
  callbackToken: string | null;

  /** EncodingAESKey of the platform's event callbacks (43 characters), write-only, sealed at rest. */
  @Column({ type: 'text', nullable: true, transformer: SEALED_TEXT })
  callbackAesKey: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  remark: string | null;

  /** A disabled corp is kept but not used to reach the platform. */
  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
