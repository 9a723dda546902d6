import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/auth.decorators';
import { Page, pageSchema } from '../../common/paging/page';
import { EVAL_SECURITY_SCHEMES, EvaluationCredentialStrategy } from '../auth/evaluation-auth';
import { CreateRunDto, RunDto, RunQueryDto } from './runs.dto';
import { RunsService } from './runs.service';

/** Runs (evaluation-platform.md, Endpoints). */
@ApiTags('evaluation')
@Controller('api/runs')
@Authenticated(EvaluationCredentialStrategy, { securityScheme: EVAL_SECURITY_SCHEMES })
export class RunsController {
  constructor(private readonly runs: RunsService) {}

  @Post()
  @ApiOperation({
    operationId: 'createRun',
    summary: 'Create a run',
    description: 'Snapshots the scenario\'s version and cases, returns the run at once with status `queued`; a durable job executes it (queued → running → completed | failed). 404 unknown scenario or target.',
  })
  @ApiCreatedResponse({ type: RunDto })
  create(@Body() body: CreateRunDto): Promise<RunDto> {
    return this.runs.create(body);
  }

  @Get()
  @ApiOperation({ operationId: 'listRuns', summary: 'List runs', description: 'Newest first, with scenario name, target name and version (`v<n>`); filter by status, scenario_id, target_id, campaign_id.' })
  @ApiOkResponse({ type: pageSchema(RunDto, 'Runs') })
  list(@Query() query: RunQueryDto): Promise<Page<RunDto>> {
    return this.runs.list(query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getRun', summary: 'Read a run', description: 'What pollers read until the status is `completed` or `failed` (or `cancelled`).' })
  @ApiOkResponse({ type: RunDto })
  @ApiNotFoundResponse({ description: 'Unknown run.' })
  get(@Param('id', ParseUUIDPipe) id: string): Promise<RunDto> {
    return this.runs.get(id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ operationId: 'cancelRun', summary: 'Cancel a run', description: 'Stops a queued or running run; finished cases keep their results. 409 when the run already ended.' })
  @ApiOkResponse({ type: RunDto })
  @ApiConflictResponse({ description: 'The run already ended.' })
  cancel(@Param('id', ParseUUIDPipe) id: string): Promise<RunDto> {
    return this.runs.cancel(id);
  }
}
