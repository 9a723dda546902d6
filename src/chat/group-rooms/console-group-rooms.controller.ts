import { Controller, Get, Header, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import { GroupRoomDetailDto, GroupRoomDto, GroupRoomPageQuery } from './group-rooms.dto';
import { GroupRoomsService } from './group-rooms.service';

const ROOM_ID_PARAM = ApiParam({ name: 'contactId', description: 'Group room id (UUID).', format: 'uuid' });

/**
 * A staff member's group rooms in the console (chat-management-api.md, Console endpoints:
 * `POST {C}/workChat/{workChatUserId}/contact/room/{contactId}/ai/switch`), plus the list and read of rooms the spec
 * leaves out. A staff member has the rooms they own or are a staff member of; others answer 404.
 */
@ApiTags('chat: group rooms')
@Controller('api/:tenant/console/workChat/:workChatUserId/contact/room')
@ChatAuth()
@ApiParam({ name: 'workChatUserId', description: 'The staff member (platform userid): the room\'s owner or one of its staff members.', example: 'zhangsan' })
export class ConsoleGroupRoomsController {
  constructor(private readonly rooms: GroupRoomsService) {}

  @Get()
  @ApiOperation({
    operationId: 'pageChatContactsRoom',
    summary: 'Page a staff member\'s group rooms',
    description: 'Rooms the staff member owns or is a staff member of (synced with guide/syncGroup), newest first. Filters: corpId, keyword, aiEnabled. Sort fields: createdAt, updatedAt, name, memberCount. `size` above 200 → 400.',
  })
  @ApiOkResponse({ type: pageResultSchema(GroupRoomDto, 'Group rooms of the staff member') })
  @ApiBadRequestResponse({ description: 'Invalid page, size (1..200), sort field or filter.' })
  list(@CurrentTenant() tenantId: string, @Param('workChatUserId') workChatUserId: string, @Query() query: GroupRoomPageQuery): Promise<Page<GroupRoomDto>> {
    return this.rooms.listForStaff(tenantId, workChatUserId, query);
  }

  @Get(':contactId')
  @ROOM_ID_PARAM
  @ApiOperation({ operationId: 'getChatContactsRoom', summary: 'Read a group room with its members' })
  @ApiOkResponse({ type: GroupRoomDetailDto })
  @ApiBadRequestResponse({ description: 'contactId is not a UUID.' })
  get(@CurrentTenant() tenantId: string, @Param('workChatUserId') workChatUserId: string, @Param('contactId', ParseUUIDPipe) roomId: string): Promise<GroupRoomDetailDto> {
    return this.rooms.getForStaff(tenantId, workChatUserId, roomId);
  }

  @Post(':contactId/ai/switch')
  @HttpCode(200)
  @Header('Content-Type', 'application/json; charset=utf-8')
  @ROOM_ID_PARAM
  @ApiOperation({
    operationId: 'switchChatContactsRoomAi',
    summary: 'Toggle the AI reply in a group room',
    description: 'No body: flips the switch atomically (concurrent calls each flip once) and returns the new value (true = the digital staff replies in the room).',
  })
  @ApiOkResponse({ description: 'The new value of the switch.', schema: { type: 'boolean', example: false } })
  @ApiBadRequestResponse({ description: 'contactId is not a UUID.' })
  toggleAi(@CurrentTenant() tenantId: string, @Param('workChatUserId') workChatUserId: string, @Param('contactId', ParseUUIDPipe) roomId: string): Promise<boolean> {
    return this.rooms.toggleAi(tenantId, workChatUserId, roomId);
  }
}
