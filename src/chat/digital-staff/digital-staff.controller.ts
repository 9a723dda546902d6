import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import { WorkChatUsersService } from '../staff-users/work-chat-users.service';
import { ChatStaffBindRequestV1, ChatStaffCreateRequestV1, ChatStaffDto, ChatStaffPageQueryV1, ChatStaffUpdateRequestV1 } from './digital-staff.dto';
import { DigitalStaffService } from './digital-staff.service';

/**
 * Digital staff (chat-management-api.md, Tenant API: `POST {T}/v1/chat/staff` createChatStaffV1, `POST
 * {T}/v1/chat/staff/bind` bindChatStaffV1), plus the list, read, update and delete the spec leaves out. Success is
 * 200 for every operation (spec, Endpoints).
 */
@ApiTags('chat: digital staff')
@Controller('api/:tenant/v1/chat/staff')
@ChatAuth()
export class DigitalStaffController {
  constructor(
    private readonly digitalStaff: DigitalStaffService,
    private readonly users: WorkChatUsersService,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createChatStaffV1',
    summary: 'Create a digital staff',
    description: 'A digital staff (AI employee) answers the customers of the staff users bound to it, with `persona` as the system prompt, within its service time. The name is unique within the tenant (409).',
  })
  @ApiOkResponse({ type: ChatStaffDto })
  @ApiBadRequestResponse({ description: 'Invalid fields.' })
  @ApiConflictResponse({ description: 'The tenant already has a digital staff with this name.' })
  create(@CurrentTenant() tenantId: string, @Body() body: ChatStaffCreateRequestV1): Promise<ChatStaffDto> {
    return this.digitalStaff.create(tenantId, body);
  }

  @Post('bind')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'bindChatStaffV1',
    summary: 'Bind staff users to a digital staff',
    description:
      'Binds the staff users of corp `corpName` with these platform userids to digital staff `staffId`; staff users bound to another digital staff are moved. All or nothing: an unknown corp, digital staff or userid → 404 and nothing changes. At most CHAT_STAFF_MAX_IDS userids. No response body. To unbind one staff user, PUT {C}/workChat/user/{id} with `digitalStaffId: null`.',
  })
  @ApiOkResponse({ description: 'Bound (no body).' })
  @ApiBadRequestResponse({ description: 'Invalid fields, or more than CHAT_STAFF_MAX_IDS userids.' })
  async bind(@CurrentTenant() tenantId: string, @Body() body: ChatStaffBindRequestV1): Promise<void> {
    await this.users.bindByWorkChatUserIds(tenantId, body.staffId, body.corpName, body.workChatUserIds);
  }

  @Get()
  @ApiOperation({
    operationId: 'pageChatStaffV1',
    summary: 'Page the tenant\'s digital staff',
    description: 'Newest first. `name` filters by case-insensitive substring, `enabled` by state. Sort fields: createdAt, updatedAt, name. `size` above 200 → 400.',
  })
  @ApiOkResponse({ type: pageResultSchema(ChatStaffDto, 'Digital staff of the tenant') })
  @ApiBadRequestResponse({ description: 'Invalid page, size (1..200), sort field or filter.' })
  list(@CurrentTenant() tenantId: string, @Query() query: ChatStaffPageQueryV1): Promise<Page<ChatStaffDto>> {
    return this.digitalStaff.list(tenantId, query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getChatStaffV1', summary: 'Read a digital staff of the tenant' })
  @ApiOkResponse({ type: ChatStaffDto })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  get(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<ChatStaffDto> {
    return this.digitalStaff.get(tenantId, id);
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'updateChatStaffV1',
    summary: 'Change a digital staff of the tenant',
    description: 'Changes the fields given; omitted ones are kept; "" clears description and welcomeMessage.',
  })
  @ApiOkResponse({ type: ChatStaffDto })
  @ApiBadRequestResponse({ description: 'Invalid fields.' })
  @ApiConflictResponse({ description: 'Another digital staff of the tenant has this name.' })
  update(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Body() body: ChatStaffUpdateRequestV1): Promise<ChatStaffDto> {
    return this.digitalStaff.update(tenantId, id, body);
  }

  @Delete(':id')
  @ApiOperation({
    operationId: 'deleteChatStaffV1',
    summary: 'Delete a digital staff of the tenant',
    description: 'Deletes it with its service time. Refused (409) while staff users are bound to it: unbind or rebind them first, so no customer silently loses AI replies.',
  })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  @ApiConflictResponse({ description: 'Staff users are bound to it (the message names them).' })
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.digitalStaff.remove(tenantId, id);
  }
}
