import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayUnique, IsArray, IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { toBoolean, TRIMMED_NAME } from '../conversation-groups/conversation-group.dto';
import { ChatGroupEntity, ROUTING_STRATEGIES, type RoutingStrategy } from './chat-group.entity';

/**
 * Body of `POST {C}/chat/group` and `PUT /api/console/chat/group/{id}` (chat-management-api.md:
 * ChatGroupSaveRequest). PUT replaces the group: omitted optional fields take their defaults (empty lists, none).
 */
export class ChatGroupSaveRequest {
  @ApiProperty({ description: 'Name of the chat group; unique within the tenant.', maxLength: 100, example: 'After-sales team' })
  @IsString() @IsNotEmpty() @MaxLength(100) @Matches(TRIMMED_NAME, { message: 'name must not start or end with spaces' })
  name: string;

  @ApiPropertyOptional({ description: 'Operator\'s description.', maxLength: 500 })
  @IsOptional() @IsString() @MaxLength(500)
  description?: string;

  @ApiPropertyOptional({
    description: 'Channels (ChatChannelDto.id) whose chats this group handles; a channel belongs to at most one chat group (409). No duplicates; at most CHAT_GROUP_MAX_CHANNELS.',
    type: [String],
    format: 'uuid',
    default: [],
  })
  @IsOptional() @IsArray() @ArrayMaxSize(10_000) @ArrayUnique() @IsUUID('all', { each: true })
  channelIds?: string[];

  @ApiPropertyOptional({
    description: 'Staff users (WorkChatUserRelateDto.id) who take chats over from the digital staff. No duplicates; at most CHAT_GROUP_MAX_MEMBERS.',
    type: [String],
    format: 'uuid',
    default: [],
  })
  @IsOptional() @IsArray() @ArrayMaxSize(10_000) @ArrayUnique() @IsUUID('all', { each: true })
  memberUserIds?: string[];

  @ApiPropertyOptional({ description: 'The digital staff that answers first (ChatStaffDto.id); omitted = people only. An enabled group needs this or at least one member.', format: 'uuid' })
  @IsOptional() @IsUUID()
  digitalStaffId?: string;

  @ApiPropertyOptional({
    description: 'How a chat is handed to a member: `round_robin` in turn, `least_busy` to the member with the fewest open chats, `manual` members pick from the queue.',
    enum: ROUTING_STRATEGIES,
    default: 'round_robin',
  })
  @IsOptional() @IsIn(ROUTING_STRATEGIES)
  routingStrategy?: RoutingStrategy;

  @ApiPropertyOptional({ description: 'Most open chats one member handles at a time (1..1000); omitted = no limit. Needs members.', minimum: 1, maximum: 1000, example: 10 })
  @IsOptional() @IsInt() @Min(1) @Max(1000)
  maxConcurrentChatsPerMember?: number;

  @ApiPropertyOptional({ description: 'A disabled group takes no new chats.', default: true })
  @IsOptional() @IsBoolean()
  enabled?: boolean;
}

/** Sort fields of the chat group list. */
export const CHAT_GROUP_SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', name: 'name' } as const;

/** Query of `GET {C}/chat/group`. */
export class ChatGroupPageQuery extends PageBoundsQueryDto {
  @SortParam(CHAT_GROUP_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only groups whose name contains this text (case-insensitive).', maxLength: 100 })
  @IsOptional() @IsString() @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ description: 'Only enabled (true) or disabled (false) groups.', type: Boolean })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ description: 'Only the group handling this channel.', format: 'uuid' })
  @IsOptional() @IsUUID()
  channelId?: string;

  @ApiPropertyOptional({ description: 'Only groups with this staff user as a member.', format: 'uuid' })
  @IsOptional() @IsUUID()
  memberUserId?: string;
}

/** A chat group as returned (chat-management-api.md: ChatGroupDto). */
export class ChatGroupDto {
  @ApiProperty({ description: 'Id of the chat group (UUID).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Name (unique in the tenant).', example: 'After-sales team' }) name: string;
  @ApiProperty({ description: 'Operator\'s description, or null.', type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'Channels it handles (sorted).', type: [String] }) channelIds: string[];
  @ApiProperty({ description: 'Member staff users (sorted).', type: [String] }) memberUserIds: string[];
  @ApiProperty({ description: 'The digital staff answering first, or null.', type: String, format: 'uuid', nullable: true }) digitalStaffId: string | null;
  @ApiProperty({ description: 'How chats are handed to members.', enum: ROUTING_STRATEGIES }) routingStrategy: RoutingStrategy;
  @ApiProperty({ description: 'Most open chats per member, or null for no limit.', type: Number, nullable: true }) maxConcurrentChatsPerMember: number | null;
  @ApiProperty({ description: 'Whether it takes new chats.' }) enabled: boolean;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** Maps a row to its response. */
export function toChatGroupDto(row: ChatGroupEntity): ChatGroupDto {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    description: row.description,
    channelIds: row.channelIds,
    memberUserIds: row.memberUserIds,
    digitalStaffId: row.digitalStaffId,
    routingStrategy: row.routingStrategy,
    maxConcurrentChatsPerMember: row.maxConcurrentChatsPerMember,
    enabled: row.enabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
