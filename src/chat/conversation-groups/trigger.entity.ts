import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** What a trigger does when it fires (see trigger.rules.ts for the settings each needs). */
export const TRIGGER_ACTIONS = ['send_text', 'send_script', 'add_tags', 'handoff', 'switch_group', 'terminate'] as const;
export type TriggerAction = (typeof TRIGGER_ACTIONS)[number];

/**
 * The action-specific settings of a trigger, normalised; only the members of its action are present:
 * `send_text` → text, `send_script` → scriptContentId, `add_tags` → tagNames, `handoff` → reason (optional),
 * `switch_group` / `terminate` → none (the target group is its own column).
 */
export interface TriggerActionConfig {
  text?: string;
  scriptContentId?: string;
  tagNames?: string[];
  reason?: string;
}

/**
 * A trigger of a conversation group (chat-management-api.md, Conversations: ConversationGroupTriggerDto): when any
 * of its event definitions (all of the SAME group) occurs in a conversation of the group, it performs its action —
 * send a text or a script, tag the customer, hand the customer to a person, move the conversation to another group,
 * or terminate it. Triggers run by ascending `priority`; `cooldownSeconds` keeps one from firing again too soon in
 * one conversation. The name is unique within the group.
 */
@Entity({ name: 'chat_conversation_trigger' })
@Index('ux_chat_conversation_trigger_group_name', ['tenantId', 'conversationGroupId', 'name'], { unique: true })
@Index('ix_chat_conversation_trigger_tenant_target', ['tenantId', 'targetConversationGroupId'])
export class ConversationTriggerEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** The group it belongs to (chat_conversation_group.id). */
  @Column({ type: 'uuid' })
  conversationGroupId: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  /** Ids of the event definitions (of the same group) it reacts to, sorted; it fires when any of them occurs. */
  @Column({ type: 'jsonb' })
  eventDefinitionIds: string[];

  @Column({ type: 'varchar', length: 32 })
  action: TriggerAction;

  /** See {@link TriggerActionConfig}. */
  @Column({ type: 'jsonb' })
  actionConfig: TriggerActionConfig;

  /** `switch_group` only: the group the conversation moves to (chat_conversation_group.id), else null. */
  @Column({ type: 'uuid', nullable: true })
  targetConversationGroupId: string | null;

  /** Lower runs first. */
  @Column({ type: 'integer', default: 100 })
  priority: number;

  /** Least time between two firings in one conversation, seconds (0 = every time). */
  @Column({ type: 'integer', default: 0 })
  cooldownSeconds: number;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
