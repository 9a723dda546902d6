import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsNotEmpty, IsOptional, IsString, IsUUID, Matches, MaxLength } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { toBoolean, TRIMMED_NAME } from '../conversation-groups/conversation-group.dto';
import { EntRobotGroupEntity } from './ent-robot-group.entity';
import { ENT_ROBOT_SEND_STATUSES, EntRobotMessageLogEntity, type EntRobotSendStatus } from './ent-robot-message-log.entity';
import { WEBHOOK_KEY_PATTERN } from './ent-robot.rules';

/** Message types a robot sends (chat-management-api.md: EntRobotChatMessageSendRequestV1). */
export const ENT_ROBOT_MSG_TYPES = ['text', 'markdown'] as const;
export type EntRobotMsgType = (typeof ENT_ROBOT_MSG_TYPES)[number];

/**
 * Body of `POST {T}/v1/entrobot/group` and `PUT {T}/v1/entrobot/group/{id}` (chat-management-api.md:
 * EntRobotChatGroupRequestV1). `webhookKey` is required on creation; on PUT, omit it to keep the stored key. PUT
 * replaces the other fields (omitted optional fields take their defaults).
 */
export class EntRobotChatGroupRequestV1 {
  @ApiProperty({ description: 'Name of the robot chat group; unique within the tenant.', maxLength: 100, example: 'Ops alerts' })
  @IsString() @IsNotEmpty() @MaxLength(100) @Matches(TRIMMED_NAME, { message: 'name must not start or end with spaces' })
  name: string;

  @ApiPropertyOptional({
    description:
      'The `key` value of the robot\'s webhook address (`…/cgi-bin/webhook/send?key=<this>`), 8..128 letters, digits or `-`. Write-only: never returned (responses carry `keyHint`). Required on creation; on PUT, omit to keep it.',
    writeOnly: true,
    example: '693a91f6-7aaa-4bc4-97a0-0ec2b1fa5aaa',
  })
  @IsOptional() @IsString() @Matches(WEBHOOK_KEY_PATTERN, { message: "webhookKey must be the key= value of the robot's webhook address (8..128 letters, digits or '-'), not the whole URL" })
  webhookKey?: string;

  @ApiPropertyOptional({ description: 'The corp the group chat belongs to (WorkChatCorpRelateDto.id); informational.', format: 'uuid' })
  @IsOptional() @IsUUID()
  corpId?: string;

  @ApiPropertyOptional({ description: 'What the group is for.', maxLength: 500, example: 'Night-shift alerts for the support team' })
  @IsOptional() @IsString() @MaxLength(500)
  description?: string;

  @ApiPropertyOptional({ description: 'A disabled group is kept but refuses sends (409).', default: true })
  @IsOptional() @IsBoolean()
  enabled?: boolean;
}

/** Sort fields of the robot group list. */
export const ENT_ROBOT_GROUP_SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', name: 'name' } as const;

/** Query of `GET {T}/v1/entrobot/group`. */
export class EntRobotChatGroupPageQuery extends PageBoundsQueryDto {
  @SortParam(ENT_ROBOT_GROUP_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only groups whose name contains this text (case-insensitive).', maxLength: 100 })
  @IsOptional() @IsString() @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ description: 'Only enabled (true) or disabled (false) groups.', type: Boolean })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  enabled?: boolean;
}

/** Sort fields of `GET {T}/v1/entrobot/group/{id}/messages`: field → entity property; used by the query and EntRobotService.messages. */
export const ENT_ROBOT_MESSAGE_SORT_FIELDS = { createdAt: 'createdAt' } as const;

/** Query of `GET {T}/v1/entrobot/group/{id}/messages` (page, size, sort; newest first by default). */
export class EntRobotMessageLogPageQuery extends PageBoundsQueryDto {
  @SortParam(ENT_ROBOT_MESSAGE_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];
}

/** A robot chat group as returned (chat-management-api.md: EntRobotChatGroupDto); the key only as a masked hint. */
export class EntRobotChatGroupDto {
  @ApiProperty({ description: 'Id of the robot chat group (UUID).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Name (unique in the tenant).', example: 'Ops alerts' }) name: string;
  @ApiProperty({ description: 'Masked webhook key: `****` + its last 4 characters (the key itself is never returned).', example: '****5aaa' }) keyHint: string;
  @ApiProperty({ description: 'The corp of the group chat, or null.', type: String, format: 'uuid', nullable: true }) corpId: string | null;
  @ApiProperty({ description: 'Description, or null.', type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'Whether sends are accepted.' }) enabled: boolean;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** Maps a row to its response; the webhook key never leaves. */
export function toEntRobotChatGroupDto(row: EntRobotGroupEntity): EntRobotChatGroupDto {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    keyHint: row.keyHint,
    corpId: row.corpId,
    description: row.description,
    enabled: row.enabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Body of `POST {T}/v1/entrobot/message/sendMsg` (chat-management-api.md: EntRobotChatMessageSendRequestV1). Size
 * limits are UTF-8 bytes per type (CHAT_ENT_ROBOT_TEXT_MAX_BYTES, CHAT_ENT_ROBOT_MARKDOWN_MAX_BYTES → 413 above);
 * mentions are for `text` only (CHAT_ENT_ROBOT_MAX_MENTIONS → 400 above).
 */
export class EntRobotChatMessageSendRequestV1 {
  @ApiProperty({ description: 'The robot chat group to post into (EntRobotChatGroupDto.id).', format: 'uuid' })
  @IsUUID()
  groupId: string;

  @ApiProperty({ description: '`text` (plain, may mention people) or `markdown` (the platform\'s markdown subset).', enum: ENT_ROBOT_MSG_TYPES, example: 'text' })
  @IsIn(ENT_ROBOT_MSG_TYPES)
  msgType: EntRobotMsgType;

  @ApiProperty({ description: 'The message; not blank; at most the type\'s byte limit (UTF-8) → 413 above.', example: 'Disk usage on db-1 is above 90%.' })
  @IsString()
  content: string;

  @ApiPropertyOptional({ description: 'text only: staff user ids (platform userids) to @-mention; `@all` mentions everyone.', type: [String], example: ['zhangsan', '@all'] })
  @IsOptional() @IsArray() @IsString({ each: true }) @IsNotEmpty({ each: true }) @MaxLength(64, { each: true })
  mentionedUserIds?: string[];

  @ApiPropertyOptional({ description: 'text only: mobile numbers of people to @-mention; `@all` mentions everyone.', type: [String], example: ['13800000000'] })
  @IsOptional() @IsArray() @IsString({ each: true }) @Matches(/^(\+?[0-9]{5,20}|@all)$/, { each: true, message: 'each of mentionedMobiles must be a phone number (digits, optional leading +) or @all' })
  mentionedMobiles?: string[];
}

/** One entry of the robot message log (`GET {T}/v1/entrobot/group/{id}/messages`). */
export class EntRobotChatMessageLogDto {
  @ApiProperty({ description: 'Id of the log entry (UUID).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'The robot chat group.', format: 'uuid' }) groupId: string;
  @ApiProperty({ description: 'Message type.', enum: ENT_ROBOT_MSG_TYPES }) msgType: string;
  @ApiProperty({ description: 'Content length in UTF-8 bytes (the content itself is not kept).', example: 42 }) contentBytes: number;
  @ApiProperty({ description: 'Number of mentions (user ids plus mobiles).', example: 0 }) mentionCount: number;
  @ApiProperty({ description: '`sent`: the platform accepted it; `failed`: the platform refused or failed.', enum: ENT_ROBOT_SEND_STATUSES }) status: EntRobotSendStatus;
  @ApiProperty({ description: 'The platform\'s errcode when it refused, else null.', type: Number, nullable: true, example: 93000 }) platformErrorCode: number | null;
  @ApiProperty({ description: 'Why it failed (the problem detail), else null.', type: String, nullable: true }) platformError: string | null;
  @ApiProperty({ description: 'When it was sent (ISO 8601).', format: 'date-time' }) createdAt: string;
}

/** Maps a log row to its response. */
export function toEntRobotChatMessageLogDto(row: EntRobotMessageLogEntity): EntRobotChatMessageLogDto {
  return {
    id: row.id,
    groupId: row.groupId,
    msgType: row.msgType,
    contentBytes: row.contentBytes,
    mentionCount: row.mentionCount,
    status: row.status,
    platformErrorCode: row.platformErrorCode,
    platformError: row.platformError,
    createdAt: row.createdAt.toISOString(),
  };
}
