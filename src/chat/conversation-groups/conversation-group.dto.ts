import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { ConversationGroupEntity, REPLY_MODES, type ReplyMode } from './conversation-group.entity';

/** Longest system prompt addition, characters. */
export const SYSTEM_PROMPT_MAX_CHARS = 20_000;
/** A name without leading or trailing spaces. */
export const TRIMMED_NAME = /^\S(.*\S)?$/;

/** `true`/`false` query strings (and real booleans) to booleans; anything else is left for @IsBoolean to refuse. */
export const toBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

/**
 * Body of `POST {C}/userConversationGroups` and `PUT {C}/userConversationGroups/{id}` (chat-management-api.md:
 * UserConversationGroupPayload). PUT replaces the group's settings: an omitted optional field takes its default.
 */
export class UserConversationGroupPayload {
  @ApiProperty({ description: 'Name of the group; unique within the tenant.', maxLength: 100, example: 'After-sales' })
  @IsString() @IsNotEmpty() @MaxLength(100) @Matches(TRIMMED_NAME, { message: 'name must not start or end with spaces' })
  name: string;

  @ApiPropertyOptional({ description: 'Operator\'s description.', maxLength: 500, example: 'Customers asking about orders they already received.' })
  @IsOptional() @IsString() @MaxLength(500)
  description?: string;

  @ApiPropertyOptional({
    description: 'Appended to the digital staff\'s persona (system prompt) in this group\'s conversations.',
    maxLength: SYSTEM_PROMPT_MAX_CHARS,
    example: 'The customer already has the product. Ask for the order number before anything else.',
  })
  @IsOptional() @IsString() @MaxLength(SYSTEM_PROMPT_MAX_CHARS)
  systemPrompt?: string;

  @ApiPropertyOptional({
    description: '`auto`: the digital staff\'s replies are sent; `suggest`: replies are drafted for an operator to send; `off`: no AI replies (triggers still run).',
    enum: REPLY_MODES,
    default: 'auto',
  })
  @IsOptional() @IsIn(REPLY_MODES)
  replyMode?: ReplyMode;

  @ApiPropertyOptional({ description: 'Seconds to wait after a customer message before replying, so several quick messages get one reply (0..300).', minimum: 0, maximum: 300, default: 0, example: 5 })
  @IsOptional() @IsInt() @Min(0) @Max(300)
  replyDelaySeconds?: number;

  @ApiPropertyOptional({ description: 'How many of the latest messages of the conversation go into the model\'s context (0..200).', minimum: 0, maximum: 200, default: 20 })
  @IsOptional() @IsInt() @Min(0) @Max(200)
  historyMessageCount?: number;

  @ApiPropertyOptional({ description: 'Longest reply, characters (1..10000); omitted or null = no limit beyond the platform\'s.', minimum: 1, maximum: 10_000, type: Number, nullable: true, example: 500 })
  @IsOptional() @IsInt() @Min(1) @Max(10_000)
  maxReplyChars?: number | null;

  @ApiPropertyOptional({ description: 'A disabled group keeps its conversations, but no new conversation may enter it and its triggers do not run.', default: true })
  @IsOptional() @IsBoolean()
  enabled?: boolean;
}

/** Sort fields of the conversation group list (`sort=field,asc|desc`). */
export const CONVERSATION_GROUP_SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', name: 'name' } as const;

/** Query of `GET {C}/userConversationGroups`. */
export class UserConversationGroupPageQuery extends PageBoundsQueryDto {
  @SortParam(CONVERSATION_GROUP_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only groups whose name contains this text (case-insensitive).', maxLength: 100, example: 'sales' })
  @IsOptional() @IsString() @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ description: 'Only enabled (true) or disabled (false) groups.', type: Boolean })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  enabled?: boolean;
}

/** A conversation group as returned (chat-management-api.md: UserConversationGroupDTO). */
export class UserConversationGroupDTO {
  @ApiProperty({ description: 'Id of the group (UUID).', format: 'uuid', example: '3f1c2b7e-8d4a-4e6b-9a0c-5d2e1f7b8c90' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Name (unique in the tenant).', example: 'After-sales' }) name: string;
  @ApiProperty({ description: 'Operator\'s description, or null.', type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'Appended to the digital staff\'s persona in this group\'s conversations, or null.', type: String, nullable: true }) systemPrompt: string | null;
  @ApiProperty({ description: 'How the digital staff answers.', enum: REPLY_MODES }) replyMode: ReplyMode;
  @ApiProperty({ description: 'Seconds waited after a customer message before replying.', example: 0 }) replyDelaySeconds: number;
  @ApiProperty({ description: 'Latest messages given to the model as context.', example: 20 }) historyMessageCount: number;
  @ApiProperty({ description: 'Longest reply in characters, or null for no limit.', type: Number, nullable: true }) maxReplyChars: number | null;
  @ApiProperty({ description: 'Whether new conversations may enter it and its triggers run.' }) enabled: boolean;
  @ApiProperty({ description: 'Number of its triggers.', example: 2 }) triggerCount: number;
  @ApiProperty({ description: 'Number of its event definitions.', example: 3 }) eventDefinitionCount: number;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/**
 * Maps a row to its response.
 * @param counts its triggers and event definitions
 */
export function toUserConversationGroupDto(row: ConversationGroupEntity, counts: { triggers: number; eventDefinitions: number }): UserConversationGroupDTO {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    description: row.description,
    systemPrompt: row.systemPrompt,
    replyMode: row.replyMode,
    replyDelaySeconds: row.replyDelaySeconds,
    historyMessageCount: row.historyMessageCount,
    maxReplyChars: row.maxReplyChars,
    enabled: row.enabled,
    triggerCount: counts.triggers,
    eventDefinitionCount: counts.eventDefinitions,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
