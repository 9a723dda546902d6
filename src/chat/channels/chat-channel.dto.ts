import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMinSize, IsArray, IsBoolean, IsIn, IsNotEmpty, IsOptional, IsString, IsUUID, Matches, MaxLength, MinLength } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { toBoolean, TRIMMED_NAME } from '../conversation-groups/conversation-group.dto';
import { CHANNEL_TYPES, ChatChannelEntity, type ChannelType } from './chat-channel.entity';

/**
 * Body of `POST {C}/chat/channel` and `PUT {C}/chat/channel/{id}` (chat-management-api.md: ChatChannelRequest).
 * Type fields: `work_chat` needs `corpId`; `web_widget` needs `allowedOrigins` and may have `welcomeMessage` and
 * `themeColor`; `api` needs `secret` on creation. A field that does not apply to the type → 400. PUT replaces the
 * channel, except that `type` is fixed at creation and an omitted `secret` is kept.
 */
export class ChatChannelRequest {
  @ApiProperty({ description: 'Name of the channel; unique within the tenant.', maxLength: 100, example: 'Web shop widget' })
  @IsString() @IsNotEmpty() @MaxLength(100) @Matches(TRIMMED_NAME, { message: 'name must not start or end with spaces' })
  name: string;

  @ApiProperty({
    description: '`work_chat`: a corp on the enterprise chat platform; `web_widget`: a chat widget on the tenant\'s web pages; `api`: a custom integration posting signed requests. Fixed at creation.',
    enum: CHANNEL_TYPES,
    example: 'web_widget',
  })
  @IsIn(CHANNEL_TYPES)
  type: ChannelType;

  @ApiPropertyOptional({ description: 'work_chat: the corp (WorkChatCorpRelateDto.id); a corp has at most one channel.', format: 'uuid' })
  @IsOptional() @IsUUID()
  corpId?: string;

  @ApiPropertyOptional({
    description: 'web_widget: origins whose pages may embed the widget, as `https://host[:port]` (http only for localhost); at least one, at most CHAT_CHANNEL_MAX_ALLOWED_ORIGINS.',
    type: [String],
    example: ['https://shop.example.com'],
  })
  @IsOptional() @IsArray() @ArrayMinSize(1) @IsString({ each: true }) @MaxLength(255, { each: true })
  allowedOrigins?: string[];

  @ApiPropertyOptional({ description: 'web_widget: greeting shown when the widget opens.', maxLength: 500, example: 'Hi! Ask us anything about your order.' })
  @IsOptional() @IsString() @MaxLength(500)
  welcomeMessage?: string;

  @ApiPropertyOptional({ description: 'web_widget: accent colour `#RRGGBB`.', example: '#1A73E8' })
  @IsOptional() @IsString() @Matches(/^#[0-9A-Fa-f]{6}$/, { message: 'themeColor must look like #RRGGBB' })
  themeColor?: string;

  @ApiPropertyOptional({ description: 'api: the secret inbound requests are signed with (16..256 characters). Write-only: never returned. Required on creation; on PUT, omit to keep it.', writeOnly: true, minLength: 16, maxLength: 256 })
  @IsOptional() @IsString() @MinLength(16) @MaxLength(256)
  secret?: string;

  @ApiPropertyOptional({ description: 'Digital staff that answers new conversations from this channel by default (ChatStaffDto.id).', format: 'uuid' })
  @IsOptional() @IsUUID()
  digitalStaffId?: string;

  @ApiPropertyOptional({ description: 'Conversation group new conversations from this channel enter by default (UserConversationGroupDTO.id).', format: 'uuid' })
  @IsOptional() @IsUUID()
  conversationGroupId?: string;

  @ApiPropertyOptional({ description: 'A disabled channel is kept but takes no new conversations.', default: true })
  @IsOptional() @IsBoolean()
  enabled?: boolean;
}

/** Sort fields of the channel list. */
export const CHAT_CHANNEL_SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', name: 'name' } as const;

/** Query of `GET {C}/chat/channel`. */
export class ChatChannelPageQuery extends PageBoundsQueryDto {
  @SortParam(CHAT_CHANNEL_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only channels of this type.', enum: CHANNEL_TYPES })
  @IsOptional() @IsIn(CHANNEL_TYPES)
  type?: ChannelType;

  @ApiPropertyOptional({ description: 'Only channels whose name contains this text (case-insensitive).', maxLength: 100 })
  @IsOptional() @IsString() @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ description: 'Only enabled (true) or disabled (false) channels.', type: Boolean })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  enabled?: boolean;
}

/** A channel as returned (chat-management-api.md: ChatChannelDto); the secret only as a presence flag. */
export class ChatChannelDto {
  @ApiProperty({ description: 'Id of the channel (UUID).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Name (unique in the tenant).', example: 'Web shop widget' }) name: string;
  @ApiProperty({ description: 'Kind of source.', enum: CHANNEL_TYPES }) type: ChannelType;
  @ApiProperty({ description: 'work_chat: the corp, else null.', type: String, format: 'uuid', nullable: true }) corpId: string | null;
  @ApiProperty({ description: 'web_widget: allowed origins (normalised), else null.', type: [String], nullable: true }) allowedOrigins: string[] | null;
  @ApiProperty({ description: 'web_widget: greeting, or null.', type: String, nullable: true }) welcomeMessage: string | null;
  @ApiProperty({ description: 'web_widget: accent colour, or null.', type: String, nullable: true, example: '#1A73E8' }) themeColor: string | null;
  @ApiProperty({ description: 'web_widget: the public key the embed snippet carries (not a secret), else null.', type: String, nullable: true, example: 'wk_3f9c2a7d1e0b4c5a9e8d7c6b5a493827' }) widgetKey: string | null;
  @ApiProperty({ description: 'api: whether the signing secret is stored (the secret itself is never returned).' }) hasSecret: boolean;
  @ApiProperty({ description: 'Default digital staff of new conversations, or null.', type: String, format: 'uuid', nullable: true }) digitalStaffId: string | null;
  @ApiProperty({ description: 'Default conversation group of new conversations, or null.', type: String, format: 'uuid', nullable: true }) conversationGroupId: string | null;
  @ApiProperty({ description: 'The chat group handling this channel\'s chats, or null.', type: String, format: 'uuid', nullable: true }) chatGroupId: string | null;
  @ApiProperty({ description: 'Whether it takes new conversations.' }) enabled: boolean;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/**
 * Maps a row to its response; no secret leaves.
 * @param chatGroupId the chat group listing the channel, or null
 */
export function toChatChannelDto(row: ChatChannelEntity, chatGroupId: string | null): ChatChannelDto {
  const widget = row.type === 'web_widget';
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    type: row.type,
    corpId: row.corpId,
    allowedOrigins: widget ? (row.settings.allowedOrigins ?? []) : null,
    welcomeMessage: row.settings.welcomeMessage ?? null,
    themeColor: row.settings.themeColor ?? null,
    widgetKey: row.widgetKey,
    hasSecret: Boolean(row.secret),
    digitalStaffId: row.digitalStaffId,
    conversationGroupId: row.conversationGroupId,
    chatGroupId,
    enabled: row.enabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
