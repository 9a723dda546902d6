import { Body, Controller, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import { CONTACT_WAY_ID_PARAM, PLATFORM_FAILURE_RESPONSE } from './chat-contact-ways.controller';
import { ConsoleContactWayPageQuery, ContactWayDto, ContactWayRequest, SceneCodeDefaultDto, toContactWayDto } from './contact-way.dto';
import { ContactWaysService } from './contact-ways.service';
import { ParseInt64Pipe } from './int64-id';

/**
 * Contact ways in the console (chat-management-api.md, Console endpoints: `GET/POST {C}/workChat/contactWay`,
 * `PUT {C}/chat/contact/way/{id}/setDefault|hide`): the same ways as the tenant API, shown staff-user first
 * (ContactWayDto). setDefault and hide behave exactly as on `{T}/v1/chat/contact/way/{id}/…`.
 */
@ApiTags('chat: contact ways')
@Controller('api/:tenant/console')
@ChatAuth()
export class ConsoleContactWaysController {
  constructor(private readonly contactWays: ContactWaysService) {}

  @Get('workChat/contactWay')
  @ApiOperation({
    operationId: 'pageWorkChatContactWay',
    summary: 'Page the tenant\'s contact ways (console)',
    description: 'Filters: corpName, userName (a listed staff user\'s name contains it), workChatUserId (lists that staff user); hidden ways only with includeHidden=true. Sort fields: id, createdAt, updatedAt, name (default createdAt,desc). `size` 1..200.',
  })
  @ApiOkResponse({ type: pageResultSchema(ContactWayDto, 'Contact ways, staff user first') })
  @ApiBadRequestResponse({ description: 'Invalid page, size (1..200), sort field or filter.' })
  async page(@CurrentTenant() tenantId: string, @Query() query: ConsoleContactWayPageQuery): Promise<Page<ContactWayDto>> {
    const page = await this.contactWays.page(tenantId, query);
    return { ...page, content: page.content.map(toContactWayDto) };
  }

  @Post('workChat/contactWay')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'saveWorkChatContactWay',
    summary: 'Create a staff user\'s contact way (console)',
    description: 'A single-staff (type 1) way for `workChatUserId`, created on the chat platform (config id and QR code). `state` is generated when omitted and unique within the corp.',
  })
  @ApiOkResponse({ type: ContactWayDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, or input the platform refused.' })
  @ApiConflictResponse({ description: 'The state is taken in the corp, or the corp is disabled.' })
  @PLATFORM_FAILURE_RESPONSE
  async save(@CurrentTenant() tenantId: string, @Body() body: ContactWayRequest): Promise<ContactWayDto> {
    const { workChatUserId, ...rest } = body;
    const row = await this.contactWays.create(tenantId, { ...rest, workChatUserIds: [workChatUserId], type: 1 });
    const [view] = await this.contactWays.views(tenantId, [row]);
    return toContactWayDto(view);
  }

  @Put('chat/contact/way/:id/setDefault')
  @CONTACT_WAY_ID_PARAM
  @ApiOperation({
    operationId: 'setDefaultContactWayConsole',
    summary: 'Make a contact way the default of its digital staff or staff user (console)',
    description: 'As `PUT {T}/v1/chat/contact/way/{id}/setDefault`: returns the previous default(s), now false, then this way, now true.',
  })
  @ApiOkResponse({ type: [SceneCodeDefaultDto] })
  @ApiConflictResponse({ description: 'The way is hidden, or has several staff users and no digital staff.' })
  setDefault(@CurrentTenant() tenantId: string, @Param('id', ParseInt64Pipe) id: string): Promise<SceneCodeDefaultDto[]> {
    return this.contactWays.setDefault(tenantId, id);
  }

  @Put('chat/contact/way/:id/hide')
  @CONTACT_WAY_ID_PARAM
  @ApiOperation({ operationId: 'hideContactWayConsole', summary: 'Hide a contact way from lists (console)', description: 'As `PUT {T}/v1/chat/contact/way/{id}/hide`.' })
  @ApiOkResponse({ description: 'Hidden (no body).' })
  hide(@CurrentTenant() tenantId: string, @Param('id', ParseInt64Pipe) id: string): Promise<void> {
    return this.contactWays.hide(tenantId, id);
  }
}
