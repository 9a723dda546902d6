import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { WAY_STATE_PATTERN } from '../contact-ways/contact-way.rules';
import { int64ToNumber, IsPositiveInt64String } from '../contact-ways/int64-id';
import type { GroupWayEntity } from './group-way.entity';

/**
 * DTOs of group ways (chat-management-api.md, "Group way": GroupWaySceneCodeDefaultDto,
 * GroupWayConversationGroupIdRequestV1, ChatGroupWayPageDtoV1), plus ChatGroupWayRequestV1 and the list query of
 * the create/list/get/update operations the spec leaves out. Group way ids are int64 JSON numbers.
 */

/** Most group chats one group way fills (the platform's limit). */
export const MAX_GROUP_WAY_CHATS = 5;

/** A conversation group id: 1..64 letters, digits, `_` or `-`. */
export const CONVERSATION_GROUP_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Body of `POST {T}/v1/chat/group/way` and `POST {T}/v1/chat/group/way/{id}` (ChatGroupWayRequestV1). On update the
 * required fields are given again (`corpName` must be the way's corp); optional fields omitted keep their value,
 * `null` clears them.
 */
export class ChatGroupWayRequestV1 {
  @ApiProperty({ description: 'Name of the corp the way belongs to.', maxLength: 100, example: 'Acme Retail' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  corpName: string;

  @ApiProperty({ description: 'Name of the way as operators see it.', maxLength: 100, example: 'VIP group poster' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  name: string;

  @ApiProperty({ description: `Platform ids of the customer group chats to fill, in order (1..${MAX_GROUP_WAY_CHATS}, no repeats); the platform checks they exist.`, type: [String], minItems: 1, maxItems: MAX_GROUP_WAY_CHATS, example: ['wrOgQhDgAAMYQiS5ol9G7gK9JVAAAA'] })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(MAX_GROUP_WAY_CHATS) @ArrayUnique() @IsString({ each: true }) @Matches(/^\S{1,64}$/, { each: true, message: 'each chatId must be 1..64 characters without spaces' })
  chatIds: string[];

  @ApiPropertyOptional({ description: 'Platform scene: 1 = mini-program button, 2 = QR code. Default 2.', enum: [1, 2], default: 2 })
  @IsOptional() @IsIn([1, 2])
  scene?: 1 | 2;

  @ApiPropertyOptional({ description: 'Scene parameter echoed when a customer joins (1..30 letters, digits, "_" or "-"), unique within the corp (409). Generated when omitted on create; omitted on update keeps it.', maxLength: 30, pattern: WAY_STATE_PATTERN.source })
  @ValidateIf((body: ChatGroupWayRequestV1) => body.state !== undefined) @IsString() @Matches(WAY_STATE_PATTERN, { message: 'state must be 1..30 letters, digits, "_" or "-"' })
  state?: string;

  @ApiPropertyOptional({ description: 'Note kept on the platform (up to 30 characters); null clears it.', type: String, nullable: true, maxLength: 30 })
  @IsOptional() @IsString() @MaxLength(30)
  remark?: string | null;

  @ApiPropertyOptional({ description: 'The platform opens a new group chat when all are full. Default false.', default: false })
  @IsOptional() @IsBoolean()
  autoCreateRoom?: boolean;

  @ApiPropertyOptional({ description: 'Name prefix of auto-created group chats (up to 40 characters).', type: String, nullable: true, maxLength: 40 })
  @IsOptional() @IsString() @MaxLength(40)
  roomBaseName?: string | null;

  @ApiPropertyOptional({ description: 'First number suffix of auto-created group chats.', type: Number, nullable: true, minimum: 1, maximum: 1000000 })
  @IsOptional() @IsInt() @Min(1) @Max(1_000_000)
  roomBaseId?: number | null;

  @ApiPropertyOptional({ description: 'Digital staff (id) serving the groups of the way; null clears it.', type: String, format: 'uuid', nullable: true })
  @IsOptional() @IsUUID()
  digitalStaffId?: string | null;

  @ApiPropertyOptional({ description: 'Conversation group customers joining through the way enter; null clears it.', type: String, nullable: true, maxLength: 64, pattern: CONVERSATION_GROUP_ID_PATTERN.source })
  @IsOptional() @IsString() @Matches(CONVERSATION_GROUP_ID_PATTERN, { message: 'conversationGroupId must be 1..64 letters, digits, "_" or "-"' })
  conversationGroupId?: string | null;
}

/** Body of `PUT …/chat/group/way/conversationGroupId` (GroupWayConversationGroupIdRequestV1). */
export class GroupWayConversationGroupIdRequestV1 {
  @ApiProperty({ description: 'Id (int64) of the group way. As a JSON number it must be exact, so at most 2^53 − 1 (ids are far below it).', type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, example: 1 })
  @IsInt() @Min(1) @Max(Number.MAX_SAFE_INTEGER)
  id: number;

  @ApiProperty({ description: 'The conversation group customers joining through the way enter; null removes the assignment.', type: String, nullable: true, maxLength: 64, pattern: CONVERSATION_GROUP_ID_PATTERN.source, example: 'vip-onboarding' })
  @ValidateIf((body: GroupWayConversationGroupIdRequestV1) => body.conversationGroupId !== null) @IsString() @Matches(CONVERSATION_GROUP_ID_PATTERN, { message: 'conversationGroupId must be 1..64 letters, digits, "_" or "-", or null' })
  conversationGroupId: string | null;
}

/** Sort fields of the group way list. */
export const GROUP_WAY_SORT_FIELDS = { id: 'id', createdAt: 'createdAt', updatedAt: 'updatedAt', name: 'name' } as const;

/** Query of `GET {T}/v1/chat/group/way`. */
export class ChatGroupWayPageQuery extends PageBoundsQueryDto {
  @SortParam(GROUP_WAY_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only ways of the corp with this name (none match an unknown name). Sort fields: id, createdAt, updatedAt, name (default createdAt,desc).', maxLength: 100 })
  @IsOptional() @IsString() @MaxLength(100)
  corpName?: string;

  @ApiPropertyOptional({ description: 'Only the way with this id (int64).', type: 'integer', format: 'int64' })
  @IsOptional() @IsPositiveInt64String()
  id?: string;

  @ApiPropertyOptional({ description: 'Only ways whose name contains this text (case-insensitive).', maxLength: 100 })
  @IsOptional() @IsString() @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ description: 'Only the way with this state.', maxLength: 30 })
  @IsOptional() @IsString() @MaxLength(30)
  state?: string;

  @ApiPropertyOptional({ description: 'Only ways of this digital staff.', format: 'uuid' })
  @IsOptional() @IsUUID()
  digitalStaffId?: string;

  @ApiPropertyOptional({ description: 'Only ways assigned to this conversation group.', maxLength: 64 })
  @IsOptional() @IsString() @MaxLength(64)
  conversationGroupId?: string;

  @ApiPropertyOptional({ description: 'Only default (true) or non-default (false) ways.' })
  @IsOptional() @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value)) @IsBoolean()
  isDefault?: boolean;
}

/** A group way (ChatGroupWayPageDtoV1: the item of the group way list, also the answer of the single-way operations). */
export class ChatGroupWayPageDtoV1 {
  @ApiProperty({ description: 'Id (int64).', type: 'integer', format: 'int64', example: 1 }) id: number;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Id of the corp.', format: 'uuid' }) corpId: string;
  @ApiProperty({ description: 'Name of the corp, or null when it was unlinked.', type: String, nullable: true }) corpName: string | null;
  @ApiProperty({ description: 'Name of the way.' }) name: string;
  @ApiProperty({ description: 'Platform scene: 1 = mini-program button, 2 = QR code.', enum: [1, 2] }) scene: number;
  @ApiProperty({ description: 'Scene parameter echoed when a customer joins.', type: String, nullable: true }) state: string | null;
  @ApiProperty({ description: 'Platform ids of the group chats filled, in order.', type: [String] }) chatIds: string[];
  @ApiProperty({ description: 'Conversation group customers joining through the way enter, or null.', type: String, nullable: true }) conversationGroupId: string | null;
  @ApiProperty({ description: 'Digital staff of the way, or null.', type: String, format: 'uuid', nullable: true }) digitalStaffId: string | null;
  @ApiProperty({ description: 'Name of that digital staff, or null.', type: String, nullable: true }) digitalStaffName: string | null;
  @ApiProperty({ description: 'The platform\'s config id.' }) configId: string;
  @ApiProperty({ description: 'URL of the QR code image (the platform\'s), or null for a mini-program button.', type: String, nullable: true }) qrCode: string | null;
  @ApiProperty({ description: 'Note kept on the platform.', type: String, nullable: true }) remark: string | null;
  @ApiProperty({ description: 'The platform opens a new group chat when all are full.' }) autoCreateRoom: boolean;
  @ApiProperty({ description: 'Name prefix of auto-created group chats.', type: String, nullable: true }) roomBaseName: string | null;
  @ApiProperty({ description: 'First number suffix of auto-created group chats.', type: Number, nullable: true }) roomBaseId: number | null;
  @ApiProperty({ description: 'Whether the way is the default group way of its digital staff (or of its corp when it has none).' }) isDefault: boolean;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** One group way whose default flag setDefault changed or confirmed (GroupWaySceneCodeDefaultDto). */
export class GroupWaySceneCodeDefaultDto {
  @ApiProperty({ description: 'Id (int64).', type: 'integer', format: 'int64', example: 1 }) id: number;
  @ApiProperty({ description: 'Name of the way.' }) name: string;
  @ApiProperty({ description: 'Id of the corp (the default scope when the way has no digital staff).', format: 'uuid' }) corpId: string;
  @ApiProperty({ description: 'Digital staff of the way (its default scope when set), or null.', type: String, format: 'uuid', nullable: true }) digitalStaffId: string | null;
  @ApiProperty({ description: 'Conversation group of the way, or null.', type: String, nullable: true }) conversationGroupId: string | null;
  @ApiProperty({ description: 'Scene parameter.', type: String, nullable: true }) state: string | null;
  @ApiProperty({ description: 'URL of the QR code image, or null.', type: String, nullable: true }) qrCode: string | null;
  @ApiProperty({ description: 'The way\'s default flag after the operation: true for the new default, false for the previous one(s).' }) isDefault: boolean;
}

/** A group way with what its DTO shows besides its own columns. */
export interface GroupWayView {
  row: GroupWayEntity;
  corpName?: string;
  digitalStaffName?: string;
}

/** Maps a group way to ChatGroupWayPageDtoV1. */
export function toChatGroupWayPageDtoV1(view: GroupWayView): ChatGroupWayPageDtoV1 {
  const { row } = view;
  return {
    id: int64ToNumber(row.id),
    tenantId: row.tenantId,
    corpId: row.corpId,
    corpName: view.corpName ?? null,
    name: row.name,
    scene: row.scene,
    state: row.state,
    chatIds: row.chatIds,
    conversationGroupId: row.conversationGroupId,
    digitalStaffId: row.digitalStaffId,
    digitalStaffName: view.digitalStaffName ?? null,
    configId: row.configId,
    qrCode: row.qrCode,
    remark: row.remark,
    autoCreateRoom: row.autoCreateRoom,
    roomBaseName: row.roomBaseName,
    roomBaseId: row.roomBaseId,
    isDefault: row.isDefault,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Maps a group way whose default flag setDefault touched to GroupWaySceneCodeDefaultDto. */
export function toGroupWaySceneCodeDefaultDto(row: GroupWayEntity): GroupWaySceneCodeDefaultDto {
  return {
    id: int64ToNumber(row.id),
    name: row.name,
    corpId: row.corpId,
    digitalStaffId: row.digitalStaffId,
    conversationGroupId: row.conversationGroupId,
    state: row.state,
    qrCode: row.qrCode,
    isDefault: row.isDefault,
  };
}
