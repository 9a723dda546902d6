import { Body, Controller, Delete, Get, Param, ParseUUIDPipe, Patch, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/auth.decorators';
import { Page, pageSchema } from '../../common/paging/page';
import { EVAL_SECURITY_SCHEMES, EvaluationCredentialStrategy } from '../auth/evaluation-auth';
import {
  CreateFileCategoryDto,
  DeleteFileCategoryQueryDto,
  FileCategoryDeletionDto,
  FileCategoryDetailDto,
  FileCategoryDto,
  FileCategoryQueryDto,
  FileCategoryTreeDto,
  UpdateFileCategoryDto,
} from './file-categories.dto';
import { FileCategoriesService } from './file-categories.service';

/** The evaluation file category tree (issue 4: Files; paths not shown in the spec). */
@ApiTags('evaluation: files')
@Controller('api/file-categories')
@Authenticated(EvaluationCredentialStrategy, { securityScheme: EVAL_SECURITY_SCHEMES })
export class FileCategoriesController {
  constructor(private readonly categories: FileCategoriesService) {}

  @Post()
  @ApiOperation({ operationId: 'createFileCategory', summary: 'Create a file category', description: 'At the top level, or under `parent_id`. 404 unknown parent; 409 a sibling already has this name (ignoring case).' })
  @ApiCreatedResponse({ type: FileCategoryDto })
  @ApiBadRequestResponse({ description: 'Invalid name.' })
  @ApiNotFoundResponse({ description: 'Unknown parent.' })
  @ApiConflictResponse({ description: 'A sibling already has this name.' })
  create(@Body() body: CreateFileCategoryDto): Promise<FileCategoryDto> {
    return this.categories.create(body);
  }

  // Declared before `:id` so "tree" is never taken for an id.
  @Get('tree')
  @ApiOperation({ operationId: 'getFileCategoryTree', summary: 'The whole category tree', description: 'Top-level categories sorted by name, each with its subcategories and its direct file count; plus the number of files in no category.' })
  @ApiOkResponse({ type: FileCategoryTreeDto })
  tree(): Promise<FileCategoryTreeDto> {
    return this.categories.tree();
  }

  @Get()
  @ApiOperation({ operationId: 'listFileCategories', summary: 'List file categories (flat, paged)', description: 'By name; filter by `parent_id` (`root` = top level) and by name (`q`); sortable by name, createdAt.' })
  @ApiOkResponse({ type: pageSchema(FileCategoryDto, 'File categories') })
  list(@Query() query: FileCategoryQueryDto): Promise<Page<FileCategoryDto>> {
    return this.categories.list(query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getFileCategory', summary: 'Read a file category', description: 'With its path from the top level and its direct file and subcategory counts.' })
  @ApiOkResponse({ type: FileCategoryDetailDto })
  @ApiNotFoundResponse({ description: 'Unknown category.' })
  get(@Param('id', ParseUUIDPipe) id: string): Promise<FileCategoryDetailDto> {
    return this.categories.get(id);
  }

  @Patch(':id')
  @ApiOperation({
    operationId: 'updateFileCategory',
    summary: 'Rename and/or move a file category',
    description: '`name` renames; `parent_id` moves (null = to the top level). 404 unknown category or parent; 409 when the move would put the category inside itself or one of its descendants (`cycle` lists the chain) or a sibling at the destination has the same name.',
  })
  @ApiOkResponse({ type: FileCategoryDto })
  @ApiBadRequestResponse({ description: 'Invalid name.' })
  @ApiNotFoundResponse({ description: 'Unknown category or parent.' })
  @ApiConflictResponse({ description: 'The move would make a loop, or the name is taken at the destination.' })
  update(@Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateFileCategoryDto): Promise<FileCategoryDto> {
    return this.categories.update(id, body);
  }

  @Delete(':id')
  @ApiOperation({
    operationId: 'deleteFileCategory',
    summary: 'Delete a file category',
    description:
      'Without `recursive=true`, only an empty category (no files, no subcategories); otherwise 409 with `file_count` and `subcategory_count`. With `recursive=true`, the category, its subtree and every file in it are deleted in one transaction; ' +
      'the files\' stored contents are removed after the commit. Should a content removal fail, the files are still gone for every reader; the failure is logged with the storage key and the orphaned content is left for an operator.',
  })
  @ApiOkResponse({ type: FileCategoryDeletionDto })
  @ApiNotFoundResponse({ description: 'Unknown category.' })
  @ApiConflictResponse({ description: 'Not empty and recursive is not true.' })
  remove(@Param('id', ParseUUIDPipe) id: string, @Query() query: DeleteFileCategoryQueryDto): Promise<FileCategoryDeletionDto> {
    return this.categories.remove(id, query.recursive ?? false);
  }
}
