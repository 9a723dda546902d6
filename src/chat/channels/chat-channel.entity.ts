import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { SEALED_TEXT } from '../../database/sealed-columns';

/** Kinds of inbound sources (see channel.rules.ts for what each needs). */
export const CHANNEL_TYPES = ['work_chat', 'web_widget', 'api'] as const;
/**
 * - `work_chat`: a corp on the enterprise chat platform (its customers write to the corp's staff users).
 * - `web_widget`: a chat widget embedded in the tenant's web pages, allowed only on the listed origins.
 * - `api`: a custom integration that posts customer messages with requests signed by the channel's secret.
 */
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** Type-specific settings of a channel, normalised; only `web_widget` has any. */
export interface ChannelSettings {
  /** web_widget: origins (`https://shop.example.com`) whose pages may embed the widget. */
  allowedOrigins?: string[];
  /** web_widget: greeting shown when the widget opens. */
  welcomeMessage?: string;
  /** web_widget: accent colour `#RRGGBB`. */
  themeColor?: string;
}

/**
 * An inbound channel of a tenant (chat-management-api.md, "Channel and chat group": ChatChannelDto): a source
 * customers reach the tenant through, with the digital staff and conversation group that new conversations from it
 * get by default. A `work_chat` channel names one corp (at most one channel per corp); a `web_widget` channel has a
 * public widget key (generated, unique) and allowed origins; an `api` channel has a write-only signing secret.
 * Chat groups route channels to staff (chat_chat_group.channel_ids): a channel used there cannot be deleted. The
 * name is unique within the tenant. Every index leads with `tenant_id`.
 */
@Entity({ name: 'chat_channel' })
@Index('ux_chat_channel_tenant_name', ['tenantId', 'name'], { unique: true })
@Index('ux_chat_channel_tenant_corp', ['tenantId', 'corpId'], { unique: true, where: '"corp_id" IS NOT NULL' })
@Index('ux_chat_channel_tenant_widget_key', ['tenantId', 'widgetKey'], { unique: true, where: '"widget_key" IS NOT NULL' })
@Index('ix_chat_channel_tenant_conversation_group', ['tenantId', 'conversationGroupId'])
@Index('ix_chat_channel_tenant_created', ['tenantId', 'createdAt'])
export class ChatChannelEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** See {@link ChannelType}; fixed at creation. */
  @Column({ type: 'varchar', length: 20 })
  type: ChannelType;

  /** work_chat: the corp (chat_work_corp.id), else null. */
  @Column({ type: 'uuid', nullable: true })
  corpId: string | null;

  /** See {@link ChannelSettings}; `{}` when the type has none. */
  @Column({ type: 'jsonb' })
  settings: ChannelSettings;

  /** web_widget: the public key the embed snippet carries (not a secret), else null. */
  @Column({ type: 'varchar', length: 40, nullable: true })
  widgetKey: string | null;

  /** api: the secret inbound requests are signed with; write-only (never returned or logged), sealed at rest (issue 19). */
  @Column({ type: 'text', nullable: true, transformer: SEALED_TEXT })
  secret: string | null;

  /** Digital staff that answers new conversations from this channel by default (chat_digital_staff.id), or null. */
  @Column({ type: 'uuid', nullable: true })
  digitalStaffId: string | null;

  /** Conversation group new conversations from this channel enter by default (chat_conversation_group.id), or null. */
  @Column({ type: 'uuid', nullable: true })
  conversationGroupId: string | null;

  /** A disabled channel is kept but takes no new conversations. */
  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
