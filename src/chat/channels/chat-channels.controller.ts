import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import { ChatChannelDto, ChatChannelPageQuery, ChatChannelRequest } from './chat-channel.dto';
import { ChatChannelsService } from './chat-channels.service';

/**
 * Inbound channels (chat-management-api.md, Console endpoints: `PUT {C}/chat/channel/{id}`), plus the create, list,
 * read and delete the spec leaves out (`POST/GET {C}/chat/channel`, `GET/DELETE {C}/chat/channel/{id}`). Success is
 * 200 for every operation (spec, Endpoints).
 */
@ApiTags('chat: channels and chat groups')
@Controller('api/:tenant/console/chat/channel')
@ChatAuth()
export class ChatChannelsController {
  constructor(private readonly channels: ChatChannelsService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createChatChannel',
    summary: 'Create an inbound channel',
    description:
      'A source customers reach the tenant through, with the digital staff and conversation group new conversations from it get by default. `work_chat` names a corp (at most one channel per corp, 409); `web_widget` lists allowed origins and gets a public `widgetKey`; `api` needs a signing `secret` (write-only). Fields that do not fit the type → 400. The name is unique within the tenant (409).',
  })
  @ApiOkResponse({ type: ChatChannelDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, fields that do not fit the type, unknown corp, digital staff or conversation group.' })
  @ApiConflictResponse({ description: 'The name is taken, or the corp already has a channel.' })
  create(@CurrentTenant() tenantId: string, @Body() body: ChatChannelRequest): Promise<ChatChannelDto> {
    return this.channels.create(tenantId, body);
  }

  @Get()
  @ApiOperation({
    operationId: 'pageChatChannels',
    summary: 'Page the tenant\'s channels',
    description: 'Newest first. `type`, `name` (case-insensitive substring) and `enabled` filter. Sort fields: createdAt, updatedAt, name. `size` above 200 → 400.',
  })
  @ApiOkResponse({ type: pageResultSchema(ChatChannelDto, 'Channels of the tenant') })
  @ApiBadRequestResponse({ description: 'Invalid page, size (1..200), sort field or filter.' })
  list(@CurrentTenant() tenantId: string, @Query() query: ChatChannelPageQuery): Promise<Page<ChatChannelDto>> {
    return this.channels.list(tenantId, query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getChatChannel', summary: 'Read a channel' })
  @ApiOkResponse({ type: ChatChannelDto })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  get(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<ChatChannelDto> {
    return this.channels.get(tenantId, id);
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'updateChatChannel',
    summary: 'Replace a channel\'s settings',
    description: 'PUT replaces: optional fields left out take their defaults, except `secret` (omitted = kept). `type` is fixed at creation (a different one → 400); the widget key stays.',
  })
  @ApiOkResponse({ type: ChatChannelDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, a changed type, fields that do not fit the type, unknown references.' })
  @ApiConflictResponse({ description: 'The name is taken, or the corp already has another channel.' })
  update(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Body() body: ChatChannelRequest): Promise<ChatChannelDto> {
    return this.channels.update(tenantId, id, body);
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'deleteChatChannel', summary: 'Delete a channel', description: 'Refused (409) while a chat group handles it; the message names the group.' })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  @ApiConflictResponse({ description: 'A chat group handles the channel.' })
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.channels.remove(tenantId, id);
  }
}
