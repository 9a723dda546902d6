import { Controller, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { DedupQuery, DedupResultDto } from './group-rooms.dto';
import { GroupRoomsService } from './group-rooms.service';

/**
 * The deprecated one-off cleanup of duplicate group-member rows (chat-management-api.md, Tenant API:
 * `POST {T}/v1/workChat/tmp/work-chat-group-member/dedup`; Versioning: "The group-member dedup operation is marked
 * deprecated").
 */
@ApiTags('chat: group rooms')
@Controller('api/:tenant/v1/workChat/tmp/work-chat-group-member')
@ChatAuth()
export class GroupMemberDedupController {
  constructor(private readonly rooms: GroupRoomsService) {}

  @Post('dedup')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'dedupWorkChatGroupMember',
    deprecated: true,
    summary: 'Remove duplicate group-member rows (deprecated one-off cleanup)',
    description:
      'Handles at most `limit` duplicate groups (a room and a member with several rows), keeping each group\'s most recently updated row; optionally only in one group chat (`chatGroupId`). ' +
      'Idempotent: call again while remainingDuplicateGroups > 0; with none left it deletes nothing. Group sync writes no duplicates, so this is only needed for legacy rows.',
  })
  @ApiOkResponse({ type: DedupResultDto })
  @ApiBadRequestResponse({ description: 'limit below 1 or above CHAT_GROUP_MEMBER_DEDUP_MAX_LIMIT.' })
  dedup(@CurrentTenant() tenantId: string, @Query() query: DedupQuery): Promise<DedupResultDto> {
    return this.rooms.dedupMembers(tenantId, query);
  }
}
