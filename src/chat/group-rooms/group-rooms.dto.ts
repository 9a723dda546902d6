import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, IsUUID, Matches, MaxLength, Min } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import type { GroupMemberEntity } from './group-member.entity';
import type { GroupRoomEntity } from './group-room.entity';

const toBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

/** Sort fields of the room list. */
export const GROUP_ROOM_SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', name: 'name', memberCount: 'memberCount' } as const;

/** Query of `GET {C}/workChat/{workChatUserId}/contact/room`: rooms the staff user owns or is a member of. */
export class GroupRoomPageQuery extends PageBoundsQueryDto {
  @SortParam(GROUP_ROOM_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only rooms of this corp (id of the corp link).', format: 'uuid' })
  @IsOptional() @IsUUID()
  corpId?: string;

  @ApiPropertyOptional({ description: 'Room name contains this text (case-insensitive), or equals the platform chat id.', maxLength: 64 })
  @IsOptional() @IsString() @MaxLength(64)
  keyword?: string;

  @ApiPropertyOptional({ description: 'Only rooms with the AI reply switched on (true) or off (false).' })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  aiEnabled?: boolean;
}

/** A customer group chat ("group room") as the console shows it. */
export class GroupRoomDto {
  @ApiProperty({ description: 'Room id (the console paths\' contactId for rooms).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Id of the corp link.', format: 'uuid' }) corpId: string;
  @ApiProperty({ description: 'The platform\'s group chat id.', example: 'wrXXXXXXXXXXXXXXXX' }) chatId: string;
  @ApiProperty({ description: 'Group name.', example: 'Spring fair VIPs' }) name: string;
  @ApiProperty({ description: 'The owner (staff member\'s platform userid).', example: 'zhangsan' }) ownerWorkChatUserId: string;
  @ApiProperty({ description: 'Group notice, or null.', type: String, nullable: true }) notice: string | null;
  @ApiProperty({ description: '0 normal, 1 owner left, 2 handover pending, 3 handover done.', enum: [0, 1, 2, 3] }) status: number;
  @ApiProperty({ description: 'Members at the last sync.', example: 12 }) memberCount: number;
  @ApiProperty({ description: 'Whether the digital staff replies in this room.' }) aiEnabled: boolean;
  @ApiProperty({ description: 'When the group was created on the platform (ISO 8601), or null.', type: String, format: 'date-time', nullable: true }) platformCreatedAt: string | null;
  @ApiProperty({ description: 'Last sync from the platform (ISO 8601), or null.', type: String, format: 'date-time', nullable: true }) syncedAt: string | null;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** A member of a room. */
export class GroupRoomMemberDto {
  @ApiProperty({ description: 'Platform id: staff userid (type 1) or customer external userid (type 2).', example: 'wmXXXXXXXXXXXXXXXX' }) memberUserId: string;
  @ApiProperty({ description: '1 staff member, 2 customer.', enum: [1, 2] }) memberType: number;
  @ApiProperty({ description: 'Name, or null.', type: String, nullable: true }) name: string | null;
  @ApiProperty({ description: '1 invited directly, 2 invited by link, 3 scanned a join way (0 unknown).' }) joinScene: number;
  @ApiProperty({ description: 'When the member joined (ISO 8601), or null.', type: String, format: 'date-time', nullable: true }) joinedAt: string | null;
}

/** A room with its members (one row per member; legacy duplicates shown once). */
export class GroupRoomDetailDto extends GroupRoomDto {
  @ApiProperty({ description: 'Members, staff first, then by join time.', type: [GroupRoomMemberDto] }) members: GroupRoomMemberDto[];
}

/** Maps a row to its DTO. */
export function toGroupRoomDto(row: GroupRoomEntity): GroupRoomDto {
  return {
    id: row.id,
    corpId: row.corpId,
    chatId: row.chatId,
    name: row.name,
    ownerWorkChatUserId: row.ownerWorkChatUserId,
    notice: row.notice,
    status: row.status,
    memberCount: row.memberCount,
    aiEnabled: row.aiEnabled,
    platformCreatedAt: row.platformCreatedAt?.toISOString() ?? null,
    syncedAt: row.syncedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Maps a room and its member rows to the detail DTO (one entry per member). */
export function toGroupRoomDetailDto(row: GroupRoomEntity, members: GroupMemberEntity[]): GroupRoomDetailDto {
  const seen = new Set<string>();
  const unique = members.filter((member) => !seen.has(member.memberUserId) && seen.add(member.memberUserId));
  unique.sort((a, b) => a.memberType - b.memberType || (a.joinedAt?.getTime() ?? 0) - (b.joinedAt?.getTime() ?? 0) || a.memberUserId.localeCompare(b.memberUserId));
  return {
    ...toGroupRoomDto(row),
    members: unique.map((member) => ({ memberUserId: member.memberUserId, memberType: member.memberType, name: member.name, joinScene: member.joinScene, joinedAt: member.joinedAt?.toISOString() ?? null })),
  };
}

/** Query of `POST {T}/v1/workChat/tmp/work-chat-group-member/dedup`. */
export class DedupQuery {
  @ApiPropertyOptional({ description: 'Most duplicate groups (room + member with several rows) handled in this call; at most CHAT_GROUP_MEMBER_DEDUP_MAX_LIMIT (default 1000). Default 100 (or that maximum when lower).', type: 'integer', format: 'int32', default: 100, minimum: 1 })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  limit?: number;

  @ApiPropertyOptional({ description: 'Only this group chat (the platform\'s chat id of a group room).', example: 'wrXXXXXXXXXXXXXXXX' })
  @IsOptional() @IsString() @Matches(/^\S{1,64}$/, { message: 'chatGroupId must be 1..64 characters without spaces' })
  chatGroupId?: string;
}

/** What one dedup call did (DedupResultDto). Calling it again once `remainingDuplicateGroups` is 0 deletes nothing. */
export class DedupResultDto {
  @ApiProperty({ description: 'Duplicate groups handled (at most `limit`).', example: 3 }) duplicateGroups: number;
  @ApiProperty({ description: 'Rows deleted (each group keeps its most recently updated row).', example: 4 }) deletedRows: number;
  @ApiProperty({ description: 'Duplicate groups still left (call again while > 0).', example: 0 }) remainingDuplicateGroups: number;
  @ApiProperty({ description: 'The limit applied.', example: 100 }) limit: number;
}
