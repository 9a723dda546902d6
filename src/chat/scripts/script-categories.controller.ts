import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { ScriptCategoriesService } from './script-categories.service';
import { ScriptCategoryDeleteQuery, ScriptCategoryDtoV1, ScriptCategoryRequestV1, ScriptCategoryTreeDtoV1 } from './scripts.dto';

/**
 * Script categories (chat-management-api.md, Console endpoints: `GET/PUT/DELETE {C}/chat/script-category/{id}`, DELETE
 * without a response body), plus the create and the tree listing the spec leaves out.
 */
@ApiTags('chat: scripts')
@Controller('api/:tenant/console/chat/script-category')
@ChatAuth()
export class ScriptCategoriesController {
  constructor(private readonly categories: ScriptCategoriesService) {}

  @Get()
  @ApiOperation({
    operationId: 'listScriptCategoryTree',
    summary: 'The tenant\'s script category tree',
    description: 'Every category, nested: roots, each with `children`; siblings by sortOrder, then name. At most CHAT_SCRIPT_MAX_CATEGORIES categories exist per tenant, so it is not paged.',
  })
  @ApiOkResponse({ type: [ScriptCategoryTreeDtoV1] })
  tree(@CurrentTenant() tenantId: string): Promise<ScriptCategoryTreeDtoV1[]> {
    return this.categories.tree(tenantId);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createScriptCategory',
    summary: 'Create a script category',
    description: 'Under `parentId` (404 when unknown), or as a root. Sibling names are unique (409); the tree is at most CHAT_SCRIPT_CATEGORY_MAX_DEPTH levels deep and has at most CHAT_SCRIPT_MAX_CATEGORIES categories (409).',
  })
  @ApiOkResponse({ type: ScriptCategoryDtoV1 })
  @ApiBadRequestResponse({ description: 'Invalid fields.' })
  @ApiConflictResponse({ description: 'A sibling has the name, the tree would be too deep, or the category limit is reached.' })
  create(@CurrentTenant() tenantId: string, @Body() body: ScriptCategoryRequestV1): Promise<ScriptCategoryDtoV1> {
    return this.categories.create(tenantId, body);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getScriptCategory', summary: 'Read a script category' })
  @ApiOkResponse({ type: ScriptCategoryDtoV1 })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  get(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<ScriptCategoryDtoV1> {
    return this.categories.get(tenantId, id);
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'updateScriptCategory',
    summary: 'Replace (and possibly move) a script category',
    description:
      'Replaces name, parentId, sortOrder and description (omitted parentId = a root; omitted sortOrder = 0). A new parentId moves the category with everything below it; a parent inside its own subtree (a cycle) or a tree deeper than CHAT_SCRIPT_CATEGORY_MAX_DEPTH is refused (409).',
  })
  @ApiOkResponse({ type: ScriptCategoryDtoV1 })
  @ApiBadRequestResponse({ description: 'Invalid fields.' })
  @ApiConflictResponse({ description: 'A cycle, too deep a tree, or a sibling with the name.' })
  update(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Body() body: ScriptCategoryRequestV1): Promise<ScriptCategoryDtoV1> {
    return this.categories.update(tenantId, id, body);
  }

  @Delete(':id')
  @ApiOperation({
    operationId: 'deleteScriptCategory',
    summary: 'Delete a script category',
    description: 'Refused (409) while it has subcategories or scripts, unless `recursive=true`, which deletes its whole subtree and every script in it (one transaction). No response body.',
  })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  @ApiBadRequestResponse({ description: 'The id is not a UUID, or recursive is not true/false.' })
  @ApiConflictResponse({ description: 'Not empty and recursive is not set.' })
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Query() query: ScriptCategoryDeleteQuery): Promise<void> {
    return this.categories.remove(tenantId, id, query.recursive === true);
  }
}
