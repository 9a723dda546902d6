import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiTags } from '@nestjs/swagger';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import { ScriptContentDtoV1, ScriptContentPageQuery, ScriptContentRequestV1, ScriptSearchHitDto, ScriptSearchQuery } from './scripts.dto';
import { ScriptsService } from './scripts.service';

/**
 * Script contents (chat-management-api.md, Console endpoints: `GET/PUT/DELETE {C}/chat/script-content/{id}`, DELETE
 * without a response body), plus the create, the paged list and the search (what the reply pipeline retrieves for a
 * customer message) that the spec leaves out.
 */
@ApiTags('chat: scripts')
@Controller('api/:tenant/console/chat/script-content')
@ChatAuth()
export class ScriptContentsController {
  constructor(private readonly scripts: ScriptsService) {}

  @Get()
  @ApiOperation({
    operationId: 'pageScriptContents',
    summary: 'Page the tenant\'s scripts',
    description:
      'Newest first. Filters: `categoryId` (404 when unknown; with `includeSubcategories=true` also the categories below it), `keyword` (title, text or a keyword contains it, case-insensitive), `tag` (exact), `enabled`. Sort fields: createdAt, updatedAt, title. `size` above 200 → 400.',
  })
  @ApiOkResponse({ type: pageResultSchema(ScriptContentDtoV1, 'Scripts of the tenant') })
  @ApiBadRequestResponse({ description: 'Invalid page, size (1..200), sort field or filter.' })
  list(@CurrentTenant() tenantId: string, @Query() query: ScriptContentPageQuery): Promise<Page<ScriptContentDtoV1>> {
    return this.scripts.list(tenantId, query);
  }

  @Get('search')
  @ApiOperation({
    operationId: 'searchScriptContents',
    summary: 'Find scripts for a customer message',
    description:
      'What the reply pipeline retrieves: enabled scripts ranked by a keyword match — 10 points per script keyword contained in the text, 5 when the whole title is, then 3/2/1 per search term of the text found in title/tags/script text (Chinese text is also split into two-character pieces). Scripts scoring 0 are left out; ties go to the most recently updated.',
  })
  @ApiOkResponse({ type: [ScriptSearchHitDto] })
  @ApiBadRequestResponse({ description: 'text missing, or limit out of 1..CHAT_SCRIPT_SEARCH_MAX_RESULTS.' })
  search(@CurrentTenant() tenantId: string, @Query() query: ScriptSearchQuery): Promise<ScriptSearchHitDto[]> {
    return this.scripts.search(tenantId, query.text, query.limit);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createScriptContent',
    summary: 'Create a script',
    description: 'Text (with optional `{{variable}}` placeholders), attachment metadata, retrieval keywords and tags, in an existing category (404 otherwise).',
  })
  @ApiOkResponse({ type: ScriptContentDtoV1 })
  @ApiBadRequestResponse({ description: 'Invalid fields, or more than CHAT_SCRIPT_MAX_ITEMS attachments, keywords or tags.' })
  @ApiPayloadTooLargeResponse({ description: 'The text is longer than CHAT_SCRIPT_CONTENT_MAX_CHARS.' })
  create(@CurrentTenant() tenantId: string, @Body() body: ScriptContentRequestV1): Promise<ScriptContentDtoV1> {
    return this.scripts.create(tenantId, body);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getScriptContent', summary: 'Read a script' })
  @ApiOkResponse({ type: ScriptContentDtoV1 })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  get(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<ScriptContentDtoV1> {
    return this.scripts.get(tenantId, id);
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'updateScriptContent',
    summary: 'Replace a script',
    description: 'Replaces every field (omitted lists = empty, omitted enabled = true); a new categoryId moves it.',
  })
  @ApiOkResponse({ type: ScriptContentDtoV1 })
  @ApiBadRequestResponse({ description: 'Invalid fields or too many items.' })
  @ApiPayloadTooLargeResponse({ description: 'The text is longer than CHAT_SCRIPT_CONTENT_MAX_CHARS.' })
  update(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Body() body: ScriptContentRequestV1): Promise<ScriptContentDtoV1> {
    return this.scripts.update(tenantId, id, body);
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'deleteScriptContent', summary: 'Delete a script', description: 'No response body.' })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.scripts.remove(tenantId, id);
  }
}
