import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** Kinds of events a conversation group can define (see event-definition.rules.ts for their conditions). */
export const EVENT_TYPES = ['message_received', 'message_keyword', 'intent_detected', 'tag_added', 'customer_idle', 'conversation_started'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Keyword match modes of a `message_keyword` event. */
export const KEYWORD_MATCH_MODES = ['contains', 'exact'] as const;
export type KeywordMatchMode = (typeof KEYWORD_MATCH_MODES)[number];

/**
 * The type-specific condition of an event definition, normalised (trimmed, de-duplicated); only the members of its
 * type are present: `message_keyword` → keywords + matchMode, `intent_detected` → intents, `tag_added` → tagNames,
 * `customer_idle` → idleMinutes, `message_received` / `conversation_started` → none.
 */
export interface EventCondition {
  keywords?: string[];
  matchMode?: KeywordMatchMode;
  intents?: string[];
  tagNames?: string[];
  idleMinutes?: number;
}

/**
 * An event definition of a conversation group (chat-management-api.md, Conversations:
 * ConversationGroupEventDefinitionDto): something that can happen in a conversation of the group (a customer
 * message, a keyword, a detected intent, a tag, a silence), named by a key unique within the group. Triggers of the
 * same group react to it (chat_conversation_trigger.event_definition_ids); it cannot be deleted while one does.
 */
@Entity({ name: 'chat_conversation_event_definition' })
@Index('ux_chat_conversation_event_definition_group_name', ['tenantId', 'conversationGroupId', 'name'], { unique: true })
export class ConversationEventDefinitionEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63 })
  tenantId: string;

  /** The group it belongs to (chat_conversation_group.id). */
  @Column({ type: 'uuid' })
  conversationGroupId: string;

  /** Key of the event, unique in the group (`order_paid`). */
  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 32 })
  eventType: EventType;

  /** See {@link EventCondition}. */
  @Column({ type: 'jsonb' })
  condition: EventCondition;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
