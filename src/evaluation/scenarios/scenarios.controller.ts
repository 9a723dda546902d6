import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/auth.decorators';
import { JsonBodyLimit } from '../../common/http/body-parsing';
import { Page, pageSchema } from '../../common/paging/page';
import { EVAL_SECURITY_SCHEMES, EvaluationCredentialStrategy } from '../auth/evaluation-auth';
import { CreateScenarioDto, ScenarioDto, ScenarioQueryDto, ScenarioSummaryDto, UpdateScenarioDto } from './scenarios.dto';
import { ScenariosService } from './scenarios.service';

/** Scenarios (evaluation-platform.md, Resources: Scenario; paths not shown in the spec). */
@ApiTags('evaluation: scenarios')
@Controller('api/scenarios')
@Authenticated(EvaluationCredentialStrategy, { securityScheme: EVAL_SECURITY_SCHEMES })
export class ScenariosController {
  constructor(private readonly scenarios: ScenariosService) {}

  @Post()
  @JsonBodyLimit('document') // big scenarios: up to 50,000 cases (HTTP_JSON_BODY_LIMIT_BYTES)
  @ApiOperation({ summary: 'Create a scenario', description: 'Starts at version 1; a client-sent version is ignored. Case ids must be unique; every rule is validated (400 names the case and rule).' })
  @ApiCreatedResponse({ type: ScenarioDto })
  create(@Body() body: CreateScenarioDto): Promise<ScenarioDto> {
    return this.scenarios.create(body);
  }

  @Get()
  @ApiOperation({ summary: 'List scenarios', description: 'Without their cases. Newest first; `q` filters by name; sortable by createdAt, name, version.' })
  @ApiOkResponse({ type: pageSchema(ScenarioSummaryDto, 'Scenarios') })
  list(@Query() query: ScenarioQueryDto): Promise<Page<ScenarioSummaryDto>> {
    return this.scenarios.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a scenario with its cases' })
  @ApiOkResponse({ type: ScenarioDto })
  @ApiNotFoundResponse({ description: 'Unknown id.' })
  get(@Param('id', ParseUUIDPipe) id: string): Promise<ScenarioDto> {
    return this.scenarios.get(id);
  }

  @Patch(':id')
  @JsonBodyLimit('document')
  @ApiOperation({ summary: 'Edit a scenario', description: 'The version goes up by one only when cases, model_bindings or llm_config change (compared as normalised JSON); name, description and metadata edits keep it (rule 1).' })
  @ApiOkResponse({ type: ScenarioDto })
  @ApiNotFoundResponse({ description: 'Unknown id.' })
  update(@Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateScenarioDto): Promise<ScenarioDto> {
    return this.scenarios.update(id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a scenario', description: 'Runs of it keep their snapshot of the cases and version.' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiNotFoundResponse({ description: 'Unknown id.' })
  remove(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.scenarios.remove(id);
  }
}
