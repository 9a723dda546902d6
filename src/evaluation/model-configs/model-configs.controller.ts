import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/auth.decorators';
import { Page, pageSchema } from '../../common/paging/page';
import { EVAL_SECURITY_SCHEMES, EvaluationCredentialStrategy } from '../auth/evaluation-auth';
import { CreateModelConfigDto, ModelConfigDto, ModelConfigQueryDto, UpdateModelConfigDto } from './model-configs.dto';
import { ModelConfigsService } from './model-configs.service';

/** Central model configuration (evaluation-platform.md; paths not shown in the spec). */
@ApiTags('evaluation: model configurations')
@Controller('api/model-configs')
@Authenticated(EvaluationCredentialStrategy, { securityScheme: EVAL_SECURITY_SCHEMES })
export class ModelConfigsController {
  constructor(private readonly modelConfigs: ModelConfigsService) {}

  @Post()
  @ApiOperation({ summary: 'Create a model configuration', description: 'The API key is write-only. `is_analysis_default: true` clears the previous holder in the same transaction; only an enabled chat configuration may hold it (400).' })
  @ApiCreatedResponse({ type: ModelConfigDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, or rule 5 refused.' })
  create(@Body() body: CreateModelConfigDto): Promise<ModelConfigDto> {
    return this.modelConfigs.create(body);
  }

  @Get()
  @ApiOperation({ summary: 'List model configurations', description: 'Newest first; filter by purpose; sortable by createdAt, name.' })
  @ApiOkResponse({ type: pageSchema(ModelConfigDto, 'Model configurations') })
  list(@Query() query: ModelConfigQueryDto): Promise<Page<ModelConfigDto>> {
    return this.modelConfigs.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a model configuration' })
  @ApiOkResponse({ type: ModelConfigDto })
  @ApiNotFoundResponse({ description: 'Unknown id.' })
  get(@Param('id', ParseUUIDPipe) id: string): Promise<ModelConfigDto> {
    return this.modelConfigs.get(id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change a model configuration', description: 'Any subset of fields. Omitting api_key keeps it. Rule 5 applies to is_analysis_default (400).' })
  @ApiOkResponse({ type: ModelConfigDto })
  @ApiNotFoundResponse({ description: 'Unknown id.' })
  update(@Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateModelConfigDto): Promise<ModelConfigDto> {
    return this.modelConfigs.update(id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a model configuration' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiNotFoundResponse({ description: 'Unknown id.' })
  remove(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.modelConfigs.remove(id);
  }
}
