import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import {
  BindDigitalStaffDto,
  BindDigitalStaffRequest,
  CreateWorkChatUserRelateRequest,
  UpdateWorkChatUserRelateRequest,
  WorkChatUserPageQuery,
  WorkChatUserRelateDto,
} from './work-chat-users.dto';
import { WorkChatUsersService } from './work-chat-users.service';

/**
 * Staff users (chat-management-api.md, Console endpoints: `GET/POST {C}/workChat/user`), plus the read, update and
 * delete of one staff user that the spec leaves out, and the guide operation `bindDigitalStaff`. Success is 200 for
 * every operation (spec, Endpoints).
 */
@ApiTags('chat: staff users')
@Controller('api/:tenant/console/workChat/user')
@ChatAuth()
export class WorkChatUsersController {
  constructor(private readonly users: WorkChatUsersService) {}

  @Get()
  @ApiOperation({
    operationId: 'pageWorkChatUsers',
    summary: 'Page the tenant\'s staff users',
    description:
      'Newest first. Filters combine with AND: `workChatCorpId` (platform corp id), `name` (case-insensitive substring), `mobile` and `userId` (exact), `online`, `keyword` (case-insensitive substring of name, mobile, userId or workChatUserId), `workChatUserId` (any of a set: repeat the parameter or give a comma list; at most CHAT_STAFF_MAX_IDS), `digitalStaffId`. Sort fields: createdAt, updatedAt, name, workChatUserId. `size` above 200 → 400.',
  })
  @ApiOkResponse({ type: pageResultSchema(WorkChatUserRelateDto, 'Staff users of the tenant') })
  @ApiBadRequestResponse({ description: 'Invalid page, size (1..200), sort field or filter.' })
  list(@CurrentTenant() tenantId: string, @Query() query: WorkChatUserPageQuery): Promise<Page<WorkChatUserRelateDto>> {
    return this.users.list(tenantId, query);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createWorkChatUser',
    summary: 'Add a staff user to one of the tenant\'s corps',
    description: 'The corp is named by its platform corp id (`workChatCorpId`); the staff member\'s platform userid is unique within the corp (409). Optionally bound to a digital staff at once.',
  })
  @ApiOkResponse({ type: WorkChatUserRelateDto })
  @ApiBadRequestResponse({ description: 'Invalid fields.' })
  @ApiConflictResponse({ description: 'The corp already has a staff user with this workChatUserId.' })
  create(@CurrentTenant() tenantId: string, @Body() body: CreateWorkChatUserRelateRequest): Promise<WorkChatUserRelateDto> {
    return this.users.create(tenantId, body);
  }

  @Post('guide/bindDigitalStaff')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'bindDigitalStaff',
    summary: 'Bind staff users to a digital staff (guide)',
    description:
      'Binds the staff users (by WorkChatUserRelateDto.id) to the digital staff, which then answers their customers within its service time. Staff users bound to another digital staff are moved. All or nothing: one unknown id → 404 and nothing changes. At most CHAT_STAFF_MAX_IDS ids.',
  })
  @ApiOkResponse({ type: BindDigitalStaffDto })
  @ApiBadRequestResponse({ description: 'Invalid ids, or more than CHAT_STAFF_MAX_IDS.' })
  bindDigitalStaff(@CurrentTenant() tenantId: string, @Body() body: BindDigitalStaffRequest): Promise<BindDigitalStaffDto> {
    return this.users.bindByIds(tenantId, body.digitalStaffId, body.staffUserIds);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getWorkChatUser', summary: 'Read a staff user of the tenant' })
  @ApiOkResponse({ type: WorkChatUserRelateDto })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  get(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<WorkChatUserRelateDto> {
    return this.users.get(tenantId, id);
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'updateWorkChatUser',
    summary: 'Change a staff user of the tenant',
    description: 'Changes the fields given; omitted ones are kept; "" clears userId, mobile and email; `digitalStaffId: null` unbinds it from its digital staff. The corp cannot change.',
  })
  @ApiOkResponse({ type: WorkChatUserRelateDto })
  @ApiBadRequestResponse({ description: 'Invalid fields.' })
  @ApiConflictResponse({ description: 'Another staff user of the corp has this workChatUserId.' })
  update(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateWorkChatUserRelateRequest): Promise<WorkChatUserRelateDto> {
    return this.users.update(tenantId, id, body);
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'deleteWorkChatUser', summary: 'Remove a staff user from the tenant' })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.users.remove(tenantId, id);
  }
}
