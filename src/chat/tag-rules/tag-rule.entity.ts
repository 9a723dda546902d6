import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** Whether a tag rule needs any one of its keywords in a message, or all of them. */
export const TAG_RULE_MATCH_MODES = ['any', 'all'] as const;
export type TagRuleMatchMode = (typeof TAG_RULE_MATCH_MODES)[number];

/**
 * A keyword tag rule of a tenant (chat-management-api.md, "Keyword tag rule": CustomerTagRuleRequest /
 * CustomerTagRuleDto; issue 6, "The inbound pipeline": "keyword tag rules add tags"). When an inbound customer
 * message contains the rule's keywords (`matchMode` any / all; case-insensitive, see tag-rules.rules.ts), the
 * pipeline adds `tagNames` and the platform corp tags `platformTagIds` to the contact. The name is unique within
 * the tenant; every index leads with `tenant_id`.
 */
@Entity({ name: 'chat_tag_rule' })
@Index('ux_chat_tag_rule_tenant_name', ['tenantId', 'name'], { unique: true })
@Index('ix_chat_tag_rule_tenant_created', ['tenantId', 'createdAt'])
@Index('ix_chat_tag_rule_tenant_enabled', ['tenantId', 'enabled'])
export class TagRuleEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  /** Keywords looked for in the message text (at least one). */
  @Column({ type: 'jsonb' })
  keywords: string[];

  /** One of {@link TAG_RULE_MATCH_MODES}. */
  @Column({ type: 'varchar', length: 8 })
  matchMode: TagRuleMatchMode;

  /** Tag names to add (personal / display tags). */
  @Column({ type: 'jsonb' })
  tagNames: string[];

  /** The platform's corp tag ids to add. At least one of tagNames / platformTagIds is non-empty. */
  @Column({ type: 'jsonb' })
  platformTagIds: string[];

  /** A disabled rule is kept but never matches. */
  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
