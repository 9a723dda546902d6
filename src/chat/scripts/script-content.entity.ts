import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** Kinds of attachment a script can carry. */
export const SCRIPT_ATTACHMENT_TYPES = ['image', 'video', 'file', 'link', 'miniprogram'] as const;
export type ScriptAttachmentType = (typeof SCRIPT_ATTACHMENT_TYPES)[number];

/** Metadata of one attachment of a script (the file itself lives elsewhere: a URL or a stored media id). */
export interface ScriptAttachment {
  type: ScriptAttachmentType;
  name: string;
  url?: string;
  /** Platform media id or stored file id, when the attachment was uploaded rather than linked. */
  mediaId?: string;
  mimeType?: string;
  sizeBytes?: number;
}

/**
 * A script (canned answer) in a category (chat-management-api.md, Scripts: ScriptContentDtoV1): text with optional
 * attachment metadata. `keywords` are what the reply pipeline retrieves it by (ScriptsService.search), `tags` label
 * it for operators. Disabled scripts are kept but never retrieved. Every index leads with `tenant_id`;
 * `category_id` is a plain uuid column (no FK).
 */
@Entity({ name: 'chat_script_content' })
@Index('ix_chat_script_content_tenant_category', ['tenantId', 'categoryId', 'createdAt'])
@Index('ix_chat_script_content_tenant_updated', ['tenantId', 'updatedAt'])
export class ScriptContentEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** chat_script_category.id */
  @Column({ type: 'uuid' })
  categoryId: string;

  @Column({ type: 'varchar', length: 200 })
  title: string;

  /** The script's text; may contain `{{variable}}` placeholders (src/chat/variables/template.rules.ts). */
  @Column({ type: 'text' })
  content: string;

  /** `[]` when none. */
  @Column({ type: 'jsonb' })
  attachments: ScriptAttachment[];

  /** Retrieval keywords, `[]` when none. */
  @Column({ type: 'jsonb' })
  keywords: string[];

  /** Labels, `[]` when none. */
  @Column({ type: 'jsonb' })
  tags: string[];

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
