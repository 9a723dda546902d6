import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import {
  CreateWorkChatCorpRelateRequest,
  UpdateWorkChatCorpRelateRequest,
  WorkChatCorpPageQuery,
  WorkChatCorpRelateDto,
} from './work-chat-corps.dto';
import { WorkChatCorpsService } from './work-chat-corps.service';

/**
 * Corps (chat-management-api.md, Console endpoints: `GET/POST {C}/workChat/corps`), plus the read, update and
 * delete of one corp that the spec leaves out. Success is 200 for every operation (spec, Endpoints).
 */
@ApiTags('chat: corps')
@Controller('api/:tenant/console/workChat/corps')
@ChatAuth()
export class WorkChatCorpsController {
  constructor(private readonly corps: WorkChatCorpsService) {}

  @Get()
  @ApiOperation({
    operationId: 'pageWorkChatCorps',
    summary: 'Page the tenant\'s corps',
    description: 'Newest first. `likeCorpName` filters by name (case-insensitive substring). Sort fields: createdAt, updatedAt, corpName. `size` above 200 → 400.',
  })
  @ApiOkResponse({ type: pageResultSchema(WorkChatCorpRelateDto, 'Corps of the tenant') })
  @ApiBadRequestResponse({ description: 'Invalid page, size (1..200), sort field or filter.' })
  list(@CurrentTenant() tenantId: string, @Query() query: WorkChatCorpPageQuery): Promise<Page<WorkChatCorpRelateDto>> {
    return this.corps.list(tenantId, query);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createWorkChatCorp',
    summary: 'Link a corp to the tenant',
    description: '`corpName` and `workChatCorpId` are unique within the tenant (409). The secret and callback keys are write-only.',
  })
  @ApiOkResponse({ type: WorkChatCorpRelateDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, or only one of callbackToken / callbackAesKey.' })
  @ApiConflictResponse({ description: 'The tenant already has a corp with this name or platform corp id.' })
  create(@CurrentTenant() tenantId: string, @Body() body: CreateWorkChatCorpRelateRequest): Promise<WorkChatCorpRelateDto> {
    return this.corps.create(tenantId, body);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getWorkChatCorp', summary: 'Read a corp of the tenant' })
  @ApiOkResponse({ type: WorkChatCorpRelateDto })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  get(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<WorkChatCorpRelateDto> {
    return this.corps.get(tenantId, id);
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'updateWorkChatCorp',
    summary: 'Change a corp of the tenant',
    description: 'Changes the fields given; omitted ones are kept. Secrets: omit to keep, "" to clear.',
  })
  @ApiOkResponse({ type: WorkChatCorpRelateDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, or half a callback pair.' })
  @ApiConflictResponse({ description: 'Another corp of the tenant has this name or platform corp id.' })
  update(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateWorkChatCorpRelateRequest): Promise<WorkChatCorpRelateDto> {
    return this.corps.update(tenantId, id, body);
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'deleteWorkChatCorp', summary: 'Unlink a corp from the tenant' })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  @ApiConflictResponse({ description: 'Staff users, contact ways, group ways, external contacts, group rooms or channels still refer to the corp (the message counts them); remove them or disable the corp.' })
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.corps.remove(tenantId, id);
  }
}
