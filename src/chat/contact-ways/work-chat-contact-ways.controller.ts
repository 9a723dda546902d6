import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import { CONTACT_WAY_ID_PARAM, PLATFORM_FAILURE_RESPONSE } from './chat-contact-ways.controller';
import { ContactWayDtoV1, ContactWayRequestV1, toContactWayDtoV1, WorkChatContactWayPageQuery } from './contact-way.dto';
import { ContactWayEntity } from './contact-way.entity';
import { ContactWaysService } from './contact-ways.service';
import { ParseInt64Pipe } from './int64-id';

/**
 * Contact ways, `workChat` family (chat-management-api.md, Tenant API: `{T}/v1/workChat/contact/way…`): page by
 * corp (corpName required) with mobile, id, channel and creation-time filters, save, update. The same ways as the
 * rich family (`{T}/v1/chat/contact/way`), in the ContactWayDtoV1 shape.
 */
@ApiTags('chat: contact ways')
@Controller('api/:tenant/v1/workChat/contact/way')
@ChatAuth()
export class WorkChatContactWaysController {
  constructor(private readonly contactWays: ContactWaysService) {}

  @Get()
  @ApiOperation({
    operationId: 'pageWorkChatContactWayV1',
    summary: 'Page a corp\'s contact ways',
    description: 'corpName is required (404 when the tenant has no such corp). Filters: mobile (of a listed staff user), id, channelName, startCreateTime / endCreateTime (`yyyy-MM-dd HH:mm:ss`, UTC, inclusive; other formats → 400); hidden ways only with includeHidden=true. Sort fields: id, createdAt, updatedAt, name (default createdAt,desc). `size` 1..200.',
  })
  @ApiOkResponse({ type: pageResultSchema(ContactWayDtoV1, 'Contact ways of the corp') })
  @ApiBadRequestResponse({ description: 'Missing corpName, a timestamp not in `yyyy-MM-dd HH:mm:ss`, endCreateTime before startCreateTime, invalid page, size (1..200) or sort field.' })
  async page(@CurrentTenant() tenantId: string, @Query() query: WorkChatContactWayPageQuery): Promise<Page<ContactWayDtoV1>> {
    const { corpName, ...filter } = query;
    const page = await this.contactWays.page(tenantId, { ...filter, requiredCorpName: corpName });
    return { ...page, content: page.content.map(toContactWayDtoV1) };
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'saveWorkChatContactWayV1',
    summary: 'Create a contact way (scene code) on the chat platform',
    description: 'Creates the way on the platform (config id and QR code) and stores it. `state` is generated when omitted and unique within the corp.',
  })
  @ApiOkResponse({ type: ContactWayDtoV1 })
  @ApiBadRequestResponse({ description: 'Invalid fields, type 1 with several staff users, or input the platform refused.' })
  @ApiConflictResponse({ description: 'The state is taken in the corp, or the corp is disabled.' })
  @PLATFORM_FAILURE_RESPONSE
  async save(@CurrentTenant() tenantId: string, @Body() body: ContactWayRequestV1): Promise<ContactWayDtoV1> {
    return this.dto(tenantId, await this.contactWays.create(tenantId, body));
  }

  @Post(':id')
  @HttpCode(200)
  @CONTACT_WAY_ID_PARAM
  @ApiOperation({
    operationId: 'updateWorkChatContactWayV1',
    summary: 'Change a contact way on the chat platform and here',
    description: 'Required fields are given again (`corpName` must be the way\'s corp; type and scene cannot change); optional fields omitted keep their value, null clears them.',
  })
  @ApiOkResponse({ type: ContactWayDtoV1 })
  @ApiBadRequestResponse({ description: 'Invalid fields, another corp, a type or scene change, or input the platform refused.' })
  @ApiConflictResponse({ description: 'The state is taken in the corp, or the corp is disabled.' })
  @PLATFORM_FAILURE_RESPONSE
  async update(@CurrentTenant() tenantId: string, @Param('id', ParseInt64Pipe) id: string, @Body() body: ContactWayRequestV1): Promise<ContactWayDtoV1> {
    return this.dto(tenantId, await this.contactWays.update(tenantId, id, body));
  }

  private async dto(tenantId: string, row: ContactWayEntity): Promise<ContactWayDtoV1> {
    const [view] = await this.contactWays.views(tenantId, [row]);
    return toContactWayDtoV1(view);
  }
}
