import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBadGatewayResponse, ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import { ParseInt64Pipe } from '../contact-ways/int64-id';
import {
  ChatGroupWayPageDtoV1,
  ChatGroupWayPageQuery,
  ChatGroupWayRequestV1,
  GroupWayConversationGroupIdRequestV1,
  GroupWaySceneCodeDefaultDto,
  toChatGroupWayPageDtoV1,
} from './group-way.dto';
import { GroupWayEntity } from './group-way.entity';
import { GroupWaysService } from './group-ways.service';

const GROUP_WAY_ID_PARAM = ApiParam({ name: 'id', description: 'Group way id (int64).', schema: { type: 'integer', format: 'int64', minimum: 1 }, example: 1 });
const PLATFORM_FAILURE = ApiBadGatewayResponse({ description: 'The chat platform refused or failed (problem+json with `platformOperation`, `platformErrorCode`); 504 on a platform timeout. Refusals of the input (e.g. an unknown group chat) are 400.' });
const SET_DEFAULT_DESCRIPTION =
  'One default group way per scope: the way\'s digital staff, else its corp. Returns the affected ways: the previous default(s), now false, then this way, now true (only this way when it already was the default). Safe under concurrent requests. The same operation is served on `/api/{tenant}/v1/…` and `/api/v1/{tenant}/…`.';
const CONVERSATION_GROUP_DESCRIPTION =
  'Assigns the group way `id` to a conversation group (customers joining through it enter that group); null removes the assignment. The same operation is served on `/api/{tenant}/v1/…` and `/api/v1/{tenant}/…`.';

/**
 * Group ways (chat-management-api.md, Tenant API: `PUT …/chat/group/way/{id}/setDefault` and
 * `PUT …/chat/group/way/conversationGroupId`, each on both path layouts `/api/{tenant}/v1/…` (setDefault_3,
 * updateGroupWayConversationGroupId_1) and `/api/v1/{tenant}/…` (setDefault_2, updateGroupWayConversationGroupId),
 * one service method behind both), plus the page, create, get, update and delete a user needs, on
 * `{T}/v1/chat/group/way`.
 */
@ApiTags('chat: group ways')
@Controller('api')
@ChatAuth()
export class GroupWaysController {
  constructor(private readonly groupWays: GroupWaysService) {}

  @Get(':tenant/v1/chat/group/way')
  @ApiOperation({
    operationId: 'pageChatGroupWayV1',
    summary: 'Page the tenant\'s group ways',
    description: 'Filters: corpName, id, name (contains), state, digitalStaffId, conversationGroupId, isDefault. Sort fields: id, createdAt, updatedAt, name (default createdAt,desc). `size` 1..200.',
  })
  @ApiOkResponse({ type: pageResultSchema(ChatGroupWayPageDtoV1, 'Group ways of the tenant') })
  @ApiBadRequestResponse({ description: 'Invalid page, size (1..200), sort field or filter.' })
  async page(@CurrentTenant() tenantId: string, @Query() query: ChatGroupWayPageQuery): Promise<Page<ChatGroupWayPageDtoV1>> {
    const page = await this.groupWays.page(tenantId, query);
    return { ...page, content: page.content.map(toChatGroupWayPageDtoV1) };
  }

  @Post(':tenant/v1/chat/group/way')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'saveChatGroupWayV1',
    summary: 'Create a group way (group join scene code) on the chat platform',
    description: 'Creates the way on the platform (config id and QR code) and stores it. The group chats must exist on the platform; `state` is generated when omitted and unique within the corp.',
  })
  @ApiOkResponse({ type: ChatGroupWayPageDtoV1 })
  @ApiBadRequestResponse({ description: 'Invalid fields, or input the platform refused (e.g. an unknown group chat).' })
  @ApiConflictResponse({ description: 'The state is taken in the corp, or the corp is disabled.' })
  @PLATFORM_FAILURE
  async save(@CurrentTenant() tenantId: string, @Body() body: ChatGroupWayRequestV1): Promise<ChatGroupWayPageDtoV1> {
    return this.dto(tenantId, await this.groupWays.create(tenantId, body));
  }

  @Put(':tenant/v1/chat/group/way/conversationGroupId')
  @ApiOperation({ operationId: 'updateGroupWayConversationGroupId_1', summary: 'Assign a group way to a conversation group', description: CONVERSATION_GROUP_DESCRIPTION })
  @ApiOkResponse({ type: ChatGroupWayPageDtoV1 })
  @ApiBadRequestResponse({ description: 'Invalid id or conversationGroupId.' })
  setConversationGroupTenantFirst(@CurrentTenant() tenantId: string, @Body() body: GroupWayConversationGroupIdRequestV1): Promise<ChatGroupWayPageDtoV1> {
    return this.setConversationGroup(tenantId, body);
  }

  @Put('v1/:tenant/chat/group/way/conversationGroupId')
  @ApiOperation({ operationId: 'updateGroupWayConversationGroupId', summary: 'Assign a group way to a conversation group', description: CONVERSATION_GROUP_DESCRIPTION })
  @ApiOkResponse({ type: ChatGroupWayPageDtoV1 })
  @ApiBadRequestResponse({ description: 'Invalid id or conversationGroupId.' })
  setConversationGroupVersionFirst(@CurrentTenant() tenantId: string, @Body() body: GroupWayConversationGroupIdRequestV1): Promise<ChatGroupWayPageDtoV1> {
    return this.setConversationGroup(tenantId, body);
  }

  @Get(':tenant/v1/chat/group/way/:id')
  @GROUP_WAY_ID_PARAM
  @ApiOperation({ operationId: 'getChatGroupWayV1', summary: 'Read a group way' })
  @ApiOkResponse({ type: ChatGroupWayPageDtoV1 })
  @ApiBadRequestResponse({ description: 'The id is not a positive int64.' })
  async get(@CurrentTenant() tenantId: string, @Param('id', ParseInt64Pipe) id: string): Promise<ChatGroupWayPageDtoV1> {
    return this.dto(tenantId, await this.groupWays.get(tenantId, id));
  }

  @Post(':tenant/v1/chat/group/way/:id')
  @HttpCode(200)
  @GROUP_WAY_ID_PARAM
  @ApiOperation({
    operationId: 'updateChatGroupWayV1',
    summary: 'Change a group way on the chat platform and here',
    description: 'Required fields are given again (`corpName` must be the way\'s corp); optional fields omitted keep their value, null clears them. A way whose digital staff changes stops being the default.',
  })
  @ApiOkResponse({ type: ChatGroupWayPageDtoV1 })
  @ApiBadRequestResponse({ description: 'Invalid fields, another corp, or input the platform refused.' })
  @ApiConflictResponse({ description: 'The state is taken in the corp, or the corp is disabled.' })
  @PLATFORM_FAILURE
  async update(@CurrentTenant() tenantId: string, @Param('id', ParseInt64Pipe) id: string, @Body() body: ChatGroupWayRequestV1): Promise<ChatGroupWayPageDtoV1> {
    return this.dto(tenantId, await this.groupWays.update(tenantId, id, body));
  }

  @Delete(':tenant/v1/chat/group/way/:id')
  @GROUP_WAY_ID_PARAM
  @ApiOperation({ operationId: 'deleteChatGroupWayV1', summary: 'Delete a group way on the chat platform and here' })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  @PLATFORM_FAILURE
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseInt64Pipe) id: string): Promise<void> {
    return this.groupWays.remove(tenantId, id);
  }

  @Put(':tenant/v1/chat/group/way/:id/setDefault')
  @GROUP_WAY_ID_PARAM
  @ApiOperation({ operationId: 'setDefault_3', summary: 'Make a group way the default of its digital staff or corp', description: SET_DEFAULT_DESCRIPTION })
  @ApiOkResponse({ type: [GroupWaySceneCodeDefaultDto] })
  @ApiConflictResponse({ description: 'Changed by a concurrent request repeatedly; try again.' })
  setDefaultTenantFirst(@CurrentTenant() tenantId: string, @Param('id', ParseInt64Pipe) id: string): Promise<GroupWaySceneCodeDefaultDto[]> {
    return this.groupWays.setDefault(tenantId, id);
  }

  @Put('v1/:tenant/chat/group/way/:id/setDefault')
  @GROUP_WAY_ID_PARAM
  @ApiOperation({ operationId: 'setDefault_2', summary: 'Make a group way the default of its digital staff or corp', description: SET_DEFAULT_DESCRIPTION })
  @ApiOkResponse({ type: [GroupWaySceneCodeDefaultDto] })
  @ApiConflictResponse({ description: 'Changed by a concurrent request repeatedly; try again.' })
  setDefaultVersionFirst(@CurrentTenant() tenantId: string, @Param('id', ParseInt64Pipe) id: string): Promise<GroupWaySceneCodeDefaultDto[]> {
    return this.groupWays.setDefault(tenantId, id);
  }

  private async setConversationGroup(tenantId: string, body: GroupWayConversationGroupIdRequestV1): Promise<ChatGroupWayPageDtoV1> {
    return this.dto(tenantId, await this.groupWays.setConversationGroup(tenantId, String(body.id), body.conversationGroupId));
  }

  private async dto(tenantId: string, row: GroupWayEntity): Promise<ChatGroupWayPageDtoV1> {
    const [view] = await this.groupWays.views(tenantId, [row]);
    return toChatGroupWayPageDtoV1(view);
  }
}
