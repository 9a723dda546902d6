import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { ConversationEventDefinitionEntity, EVENT_TYPES, type EventType, KEYWORD_MATCH_MODES, type KeywordMatchMode } from './event-definition.entity';

/** Most keywords, intents or tag names of one event definition. */
export const EVENT_CONDITION_MAX_ITEMS = 50;
/** Key of an event definition: lower-case letters, digits and `_`, starting with a letter. */
export const EVENT_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Body of `POST {C}/conversationGroups/{groupId}/eventDefinitions` and `PUT
 * {C}/conversationGroups/{groupId}/eventDefinitions/{id}` (chat-management-api.md:
 * ConversationGroupEventDefinitionPayload). The condition fields depend on `eventType`: `message_keyword` needs
 * `keywords` (and may set `matchMode`), `intent_detected` needs `intents`, `tag_added` needs `tagNames`,
 * `customer_idle` needs `idleMinutes`; `message_received` and `conversation_started` take none. A field that does
 * not apply to the type → 400. PUT replaces the definition.
 */
export class ConversationGroupEventDefinitionPayload {
  @ApiProperty({ description: 'Key of the event, unique within the group: lower-case letters, digits and "_", starting with a letter (1..64).', maxLength: 64, example: 'asks_for_refund' })
  @IsString() @Matches(EVENT_NAME_PATTERN, { message: 'name must be 1..64 lower-case letters, digits or "_", starting with a letter' })
  name: string;

  @ApiPropertyOptional({ description: 'Operator\'s description.', maxLength: 500, example: 'The customer mentions a refund.' })
  @IsOptional() @IsString() @MaxLength(500)
  description?: string;

  @ApiProperty({
    description:
      'What happens: `message_received` any customer message; `message_keyword` a customer message with one of `keywords`; `intent_detected` one of `intents` is recognised; `tag_added` the customer gets one of `tagNames`; `customer_idle` the customer is silent for `idleMinutes` in an active conversation; `conversation_started` the conversation becomes active.',
    enum: EVENT_TYPES,
    example: 'message_keyword',
  })
  @IsIn(EVENT_TYPES)
  eventType: EventType;

  @ApiPropertyOptional({ description: `message_keyword: keywords (1..${EVENT_CONDITION_MAX_ITEMS}, each 1..50 characters; case-insensitive; duplicates dropped).`, type: [String], example: ['refund', 'money back'] })
  @IsOptional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(EVENT_CONDITION_MAX_ITEMS) @IsString({ each: true }) @MinLength(1, { each: true }) @MaxLength(50, { each: true })
  keywords?: string[];

  @ApiPropertyOptional({ description: 'message_keyword: `contains` (the message contains a keyword) or `exact` (the whole message is a keyword).', enum: KEYWORD_MATCH_MODES, default: 'contains' })
  @IsOptional() @IsIn(KEYWORD_MATCH_MODES)
  matchMode?: KeywordMatchMode;

  @ApiPropertyOptional({ description: `intent_detected: intent names (1..${EVENT_CONDITION_MAX_ITEMS}, each 1..64 characters).`, type: [String], example: ['refund_request'] })
  @IsOptional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(EVENT_CONDITION_MAX_ITEMS) @IsString({ each: true }) @MinLength(1, { each: true }) @MaxLength(64, { each: true })
  intents?: string[];

  @ApiPropertyOptional({ description: `tag_added: tag names (1..${EVENT_CONDITION_MAX_ITEMS}, each 1..64 characters).`, type: [String], example: ['VIP'] })
  @IsOptional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(EVENT_CONDITION_MAX_ITEMS) @IsString({ each: true }) @MinLength(1, { each: true }) @MaxLength(64, { each: true })
  tagNames?: string[];

  @ApiPropertyOptional({ description: 'customer_idle: minutes of customer silence (1..10080, a week).', minimum: 1, maximum: 10_080, example: 30 })
  @IsOptional() @IsInt() @Min(1) @Max(10_080)
  idleMinutes?: number;
}

/** Sort fields of the event definition list. */
export const EVENT_DEFINITION_SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', name: 'name' } as const;

/** Query of `GET {C}/conversationGroups/{groupId}/eventDefinitions`. */
export class ConversationGroupEventDefinitionPageQuery extends PageBoundsQueryDto {
  @SortParam(EVENT_DEFINITION_SORT_FIELDS, ['name,asc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only definitions of this event type.', enum: EVENT_TYPES })
  @IsOptional() @IsIn(EVENT_TYPES)
  eventType?: EventType;
}

/** An event definition as returned (chat-management-api.md: ConversationGroupEventDefinitionDto); fields not of its type are null. */
export class ConversationGroupEventDefinitionDto {
  @ApiProperty({ description: 'Id of the event definition (UUID).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'The conversation group it belongs to.', format: 'uuid' }) conversationGroupId: string;
  @ApiProperty({ description: 'Key of the event (unique in the group).', example: 'asks_for_refund' }) name: string;
  @ApiProperty({ description: 'Operator\'s description, or null.', type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'What happens.', enum: EVENT_TYPES }) eventType: EventType;
  @ApiProperty({ description: 'message_keyword: keywords, else null.', type: [String], nullable: true }) keywords: string[] | null;
  @ApiProperty({ description: 'message_keyword: match mode, else null.', enum: KEYWORD_MATCH_MODES, nullable: true }) matchMode: KeywordMatchMode | null;
  @ApiProperty({ description: 'intent_detected: intent names, else null.', type: [String], nullable: true }) intents: string[] | null;
  @ApiProperty({ description: 'tag_added: tag names, else null.', type: [String], nullable: true }) tagNames: string[] | null;
  @ApiProperty({ description: 'customer_idle: minutes of silence, else null.', type: Number, nullable: true }) idleMinutes: number | null;
  @ApiProperty({ description: 'Number of triggers of the group that react to it (it cannot be deleted while > 0).', example: 1 }) usedByTriggerCount: number;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/**
 * Maps a row to its response.
 * @param usedByTriggerCount triggers of the group that reference it
 */
export function toConversationGroupEventDefinitionDto(row: ConversationEventDefinitionEntity, usedByTriggerCount: number): ConversationGroupEventDefinitionDto {
  return {
    id: row.id,
    tenantId: row.tenantId,
    conversationGroupId: row.conversationGroupId,
    name: row.name,
    description: row.description,
    eventType: row.eventType,
    keywords: row.condition.keywords ?? null,
    matchMode: row.condition.matchMode ?? null,
    intents: row.condition.intents ?? null,
    tagNames: row.condition.tagNames ?? null,
    idleMinutes: row.condition.idleMinutes ?? null,
    usedByTriggerCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
