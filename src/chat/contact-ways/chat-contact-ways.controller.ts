import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBadGatewayResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import {
  ChatContactWayPageQuery,
  ChatContactWayRefreshDto,
  ChatContactWayRefreshRequestV1,
  ChatContactWayRequestV1,
  ChatContactWayRichDto,
  SceneCodeDefaultDto,
  toChatContactWayRichDto,
} from './contact-way.dto';
import { ContactWayEntity } from './contact-way.entity';
import { ContactWaysService } from './contact-ways.service';
import { ParseInt64Pipe } from './int64-id';

/** The int64 `{id}` path parameter of contact ways. */
export const CONTACT_WAY_ID_PARAM = ApiParam({ name: 'id', description: 'Contact way id (int64).', schema: { type: 'integer', format: 'int64', minimum: 1 }, example: 1 });

/** Platform failures a contact way write can surface (problem+json with platformOperation / platformErrorCode). */
export const PLATFORM_FAILURE_RESPONSE = ApiBadGatewayResponse({ description: 'The chat platform refused or failed (problem+json with `platformOperation`, `platformErrorCode`, `platformErrorMessage`); 504 on a platform timeout. Refusals of the input are 400.' });

/**
 * Contact ways, rich family (chat-management-api.md, Tenant API: `{T}/v1/chat/contact/way…`): page, save, update,
 * refresh, setDefault, hide; plus get and delete of one way, which the spec leaves out. Success is 200 for every
 * operation.
 */
@ApiTags('chat: contact ways')
@Controller('api/:tenant/v1/chat/contact/way')
@ChatAuth()
export class ChatContactWaysController {
  constructor(private readonly contactWays: ContactWaysService) {}

  @Get()
  @ApiOperation({
    operationId: 'pageChatContactWayV1',
    summary: 'Page the tenant\'s contact ways (rich)',
    description: 'Filters: corpName, mobile (of a listed staff user), id, name (contains), relevanceCode, state; hidden ways only with includeHidden=true. Sort fields: id, createdAt, updatedAt, name (default createdAt,desc). `size` 1..200.',
  })
  @ApiOkResponse({ type: pageResultSchema(ChatContactWayRichDto, 'Contact ways with corp, staff users and digital staff resolved') })
  @ApiBadRequestResponse({ description: 'Invalid page, size (1..200), sort field or filter.' })
  async page(@CurrentTenant() tenantId: string, @Query() query: ChatContactWayPageQuery): Promise<Page<ChatContactWayRichDto>> {
    const page = await this.contactWays.page(tenantId, query);
    return { ...page, content: page.content.map(toChatContactWayRichDto) };
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'saveChatContactWayV1',
    summary: 'Create a contact way (scene code) on the chat platform',
    description: 'Creates the way on the platform (config id and QR code) and stores it. Staff users must be staff users of the corp; `state` is generated when omitted and unique within the corp.',
  })
  @ApiOkResponse({ type: ChatContactWayRichDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, type 1 with several staff users, or input the platform refused.' })
  @ApiConflictResponse({ description: 'The state is taken in the corp, or the corp is disabled.' })
  @PLATFORM_FAILURE_RESPONSE
  async save(@CurrentTenant() tenantId: string, @Body() body: ChatContactWayRequestV1): Promise<ChatContactWayRichDto> {
    return this.rich(tenantId, await this.contactWays.create(tenantId, body));
  }

  @Post('refresh')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'refresh',
    summary: 'Re-read contact ways\' QR codes from the chat platform',
    description: 'For each id (at most CHAT_CONTACT_WAY_REFRESH_MAX_IDS, default 100), reads the way from the platform and stores its current QR code. One item per id, in the order given; a platform refusal for one way is reported in its item and does not stop the others. Unknown ids → 404 (nothing refreshed).',
  })
  @ApiOkResponse({ type: [ChatContactWayRefreshDto] })
  @ApiBadRequestResponse({ description: 'Invalid or repeated ids, or more than CHAT_CONTACT_WAY_REFRESH_MAX_IDS.' })
  refresh(@CurrentTenant() tenantId: string, @Body() body: ChatContactWayRefreshRequestV1): Promise<ChatContactWayRefreshDto[]> {
    return this.contactWays.refresh(tenantId, body.ids.map(String));
  }

  @Get(':id')
  @CONTACT_WAY_ID_PARAM
  @ApiOperation({ operationId: 'getChatContactWayV1', summary: 'Read a contact way (rich)' })
  @ApiOkResponse({ type: ChatContactWayRichDto })
  @ApiBadRequestResponse({ description: 'The id is not a positive int64.' })
  async get(@CurrentTenant() tenantId: string, @Param('id', ParseInt64Pipe) id: string): Promise<ChatContactWayRichDto> {
    return this.rich(tenantId, await this.contactWays.get(tenantId, id));
  }

  @Post(':id')
  @HttpCode(200)
  @CONTACT_WAY_ID_PARAM
  @ApiOperation({
    operationId: 'updateChatContactWayV1',
    summary: 'Change a contact way on the chat platform and here',
    description: 'Required fields are given again (`corpName` must be the way\'s corp; type and scene cannot change); optional fields omitted keep their value, null clears them. A way whose default scope changes, or that is hidden, stops being the default.',
  })
  @ApiOkResponse({ type: ChatContactWayRichDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, another corp, a type or scene change, or input the platform refused.' })
  @ApiConflictResponse({ description: 'The state is taken in the corp, or the corp is disabled.' })
  @PLATFORM_FAILURE_RESPONSE
  async update(@CurrentTenant() tenantId: string, @Param('id', ParseInt64Pipe) id: string, @Body() body: ChatContactWayRequestV1): Promise<ChatContactWayRichDto> {
    return this.rich(tenantId, await this.contactWays.update(tenantId, id, body));
  }

  @Delete(':id')
  @CONTACT_WAY_ID_PARAM
  @ApiOperation({ operationId: 'deleteChatContactWayV1', summary: 'Delete a contact way on the chat platform and here' })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  @PLATFORM_FAILURE_RESPONSE
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseInt64Pipe) id: string): Promise<void> {
    return this.contactWays.remove(tenantId, id);
  }

  @Put(':id/setDefault')
  @CONTACT_WAY_ID_PARAM
  @ApiOperation({
    operationId: 'setDefault',
    summary: 'Make a contact way the default of its digital staff or staff user',
    description: 'One default per scope: the way\'s digital staff, else its single staff user. Returns the affected ways: the previous default(s), now false, then this way, now true (only this way when it already was the default). Safe under concurrent requests.',
  })
  @ApiOkResponse({ type: [SceneCodeDefaultDto] })
  @ApiConflictResponse({ description: 'The way is hidden, or has several staff users and no digital staff.' })
  setDefault(@CurrentTenant() tenantId: string, @Param('id', ParseInt64Pipe) id: string): Promise<SceneCodeDefaultDto[]> {
    return this.contactWays.setDefault(tenantId, id);
  }

  @Put(':id/hide')
  @CONTACT_WAY_ID_PARAM
  @ApiOperation({
    operationId: 'hide',
    summary: 'Hide a contact way from lists',
    description: 'Idempotent. A hidden way stops being the default; lists show it with includeHidden=true; an update with hidden=false shows it again.',
  })
  @ApiOkResponse({ description: 'Hidden (no body).' })
  hide(@CurrentTenant() tenantId: string, @Param('id', ParseInt64Pipe) id: string): Promise<void> {
    return this.contactWays.hide(tenantId, id);
  }

  private async rich(tenantId: string, row: ContactWayEntity): Promise<ChatContactWayRichDto> {
    const [view] = await this.contactWays.views(tenantId, [row]);
    return toChatContactWayRichDto(view);
  }
}
