import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { toBoolean, TRIMMED_NAME } from './conversation-group.dto';
import { ConversationTriggerEntity, TRIGGER_ACTIONS, type TriggerAction } from './trigger.entity';

/** Most tag names of one add_tags trigger. */
export const TRIGGER_MAX_TAGS = 20;
/** Longest send_text text, characters. */
export const TRIGGER_TEXT_MAX_CHARS = 2_000;

/**
 * Body of `POST {C}/conversationGroups/{groupId}/triggers` and `PUT {C}/conversationGroups/{groupId}/triggers/{id}`
 * (chat-management-api.md: ConversationGroupTriggerPayload). The trigger fires when any of `eventDefinitionIds`
 * (event definitions of the SAME group; others → 400) occurs. The action fields depend on `action`: `send_text` needs
 * `text`, `send_script` needs `scriptContentId`, `add_tags` needs `tagNames`, `handoff` may have `handoffReason`,
 * `switch_group` needs `targetConversationGroupId` (another group of the tenant), `terminate` takes none. A field
 * that does not apply to the action → 400. PUT replaces the trigger.
 */
export class ConversationGroupTriggerPayload {
  @ApiProperty({ description: 'Name of the trigger; unique within the group.', maxLength: 100, example: 'Refund → person' })
  @IsString() @IsNotEmpty() @MaxLength(100) @Matches(TRIMMED_NAME, { message: 'name must not start or end with spaces' })
  name: string;

  @ApiPropertyOptional({ description: 'Operator\'s description.', maxLength: 500 })
  @IsOptional() @IsString() @MaxLength(500)
  description?: string;

  @ApiProperty({
    description: 'Event definitions of the same group it reacts to (at least one, no duplicates); it fires when any of them occurs. At most CHAT_CONVERSATION_GROUP_MAX_EVENT_DEFINITIONS.',
    type: [String],
    format: 'uuid',
    example: ['9b2d7c1a-4e3f-4a5b-8c6d-7e8f9a0b1c2d'],
  })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(1000) @ArrayUnique() @IsUUID('all', { each: true })
  eventDefinitionIds: string[];

  @ApiProperty({
    description: '`send_text` send `text`; `send_script` send a script content; `add_tags` tag the customer; `handoff` switch the customer\'s AI off and open a to-do for a person; `switch_group` move the conversation to another group; `terminate` terminate the conversation.',
    enum: TRIGGER_ACTIONS,
    example: 'handoff',
  })
  @IsIn(TRIGGER_ACTIONS)
  action: TriggerAction;

  @ApiPropertyOptional({ description: 'send_text: the message (variables as `{{name}}`).', maxLength: TRIGGER_TEXT_MAX_CHARS, example: 'A colleague will contact you about the refund shortly.' })
  @IsOptional() @IsString() @MinLength(1) @MaxLength(TRIGGER_TEXT_MAX_CHARS)
  text?: string;

  @ApiPropertyOptional({ description: 'send_script: id of the script content to send (ScriptContentDtoV1.id).', format: 'uuid' })
  @IsOptional() @IsUUID()
  scriptContentId?: string;

  @ApiPropertyOptional({ description: `add_tags: tag names to add (1..${TRIGGER_MAX_TAGS}, each 1..64 characters).`, type: [String], example: ['refund'] })
  @IsOptional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(TRIGGER_MAX_TAGS) @IsString({ each: true }) @MinLength(1, { each: true }) @MaxLength(64, { each: true })
  tagNames?: string[];

  @ApiPropertyOptional({ description: 'handoff: why the customer is handed to a person (shown on the to-do).', maxLength: 500, example: 'Customer asks for a refund.' })
  @IsOptional() @IsString() @MaxLength(500)
  handoffReason?: string;

  @ApiPropertyOptional({ description: 'switch_group: the conversation group to move the conversation to (another group of the tenant).', format: 'uuid' })
  @IsOptional() @IsUUID()
  targetConversationGroupId?: string;

  @ApiPropertyOptional({ description: 'Order among the group\'s triggers: lower runs first (0..10000).', minimum: 0, maximum: 10_000, default: 100 })
  @IsOptional() @IsInt() @Min(0) @Max(10_000)
  priority?: number;

  @ApiPropertyOptional({ description: 'Least time between two firings in one conversation, seconds (0 = every time; at most a week).', minimum: 0, maximum: 604_800, default: 0, example: 3600 })
  @IsOptional() @IsInt() @Min(0) @Max(604_800)
  cooldownSeconds?: number;

  @ApiPropertyOptional({ description: 'A disabled trigger never fires.', default: true })
  @IsOptional() @IsBoolean()
  enabled?: boolean;
}

/** Sort fields of the trigger list (default: priority ascending, then name). */
export const TRIGGER_SORT_FIELDS = { priority: 'priority', name: 'name', createdAt: 'createdAt', updatedAt: 'updatedAt' } as const;

/** Query of `GET {C}/conversationGroups/{groupId}/triggers`. */
export class ConversationGroupTriggerPageQuery extends PageBoundsQueryDto {
  @SortParam(TRIGGER_SORT_FIELDS, ['priority,asc', 'name,asc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only triggers with this action.', enum: TRIGGER_ACTIONS })
  @IsOptional() @IsIn(TRIGGER_ACTIONS)
  action?: TriggerAction;

  @ApiPropertyOptional({ description: 'Only enabled (true) or disabled (false) triggers.', type: Boolean })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  enabled?: boolean;
}

/** A trigger as returned (chat-management-api.md: ConversationGroupTriggerDto); fields not of its action are null. */
export class ConversationGroupTriggerDto {
  @ApiProperty({ description: 'Id of the trigger (UUID).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'The conversation group it belongs to.', format: 'uuid' }) conversationGroupId: string;
  @ApiProperty({ description: 'Name (unique in the group).' }) name: string;
  @ApiProperty({ description: 'Operator\'s description, or null.', type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'Event definitions of the group it reacts to (sorted).', type: [String] }) eventDefinitionIds: string[];
  @ApiProperty({ description: 'What it does.', enum: TRIGGER_ACTIONS }) action: TriggerAction;
  @ApiProperty({ description: 'send_text: the message, else null.', type: String, nullable: true }) text: string | null;
  @ApiProperty({ description: 'send_script: the script content id, else null.', type: String, nullable: true }) scriptContentId: string | null;
  @ApiProperty({ description: 'add_tags: tag names, else null.', type: [String], nullable: true }) tagNames: string[] | null;
  @ApiProperty({ description: 'handoff: the reason, else null.', type: String, nullable: true }) handoffReason: string | null;
  @ApiProperty({ description: 'switch_group: the target group, else null.', type: String, nullable: true }) targetConversationGroupId: string | null;
  @ApiProperty({ description: 'Lower runs first.', example: 100 }) priority: number;
  @ApiProperty({ description: 'Least seconds between two firings in one conversation.', example: 0 }) cooldownSeconds: number;
  @ApiProperty({ description: 'Whether it fires.' }) enabled: boolean;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** Maps a row to its response. */
export function toConversationGroupTriggerDto(row: ConversationTriggerEntity): ConversationGroupTriggerDto {
  return {
    id: row.id,
    tenantId: row.tenantId,
    conversationGroupId: row.conversationGroupId,
    name: row.name,
    description: row.description,
    eventDefinitionIds: row.eventDefinitionIds,
    action: row.action,
    text: row.actionConfig.text ?? null,
    scriptContentId: row.actionConfig.scriptContentId ?? null,
    tagNames: row.actionConfig.tagNames ?? null,
    handoffReason: row.actionConfig.reason ?? null,
    targetConversationGroupId: row.targetConversationGroupId,
    priority: row.priority,
    cooldownSeconds: row.cooldownSeconds,
    enabled: row.enabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
