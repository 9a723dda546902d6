import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/auth.decorators';
import { Page, pageSchema } from '../../common/paging/page';
import { EVAL_SECURITY_SCHEMES, EvaluationCredentialStrategy } from '../auth/evaluation-auth';
import { CreateTargetDto, TargetDto, TargetQueryDto, UpdateTargetDto } from './targets.dto';
import { TargetsService } from './targets.service';

/** Evaluation targets (issue 3: Target; paths not shown in the spec). */
@ApiTags('evaluation: targets')
@Controller('api/targets')
@Authenticated(EvaluationCredentialStrategy, { securityScheme: EVAL_SECURITY_SCHEMES })
export class TargetsController {
  constructor(private readonly targets: TargetsService) {}

  @Post()
  @ApiOperation({ summary: 'Create a target', description: 'An agent reached over `http` (JSON body template + reply JSONPath), `openai` (chat completions) or `digital_staff` (a digital staff of the chat wing, named by chat tenant and digital staff id, both of which must exist (400 otherwise); each run case talks to it as its own sandbox contact — never a real customer, nothing sent to the platform — through the same inbound pipeline as real messages). Header values and API keys are write-only.' })
  @ApiCreatedResponse({ type: TargetDto })
  create(@Body() body: CreateTargetDto): Promise<TargetDto> {
    return this.targets.create(body);
  }

  @Get()
  @ApiOperation({ summary: 'List targets', description: 'Newest first; filter by kind; sortable by createdAt, name.' })
  @ApiOkResponse({ type: pageSchema(TargetDto, 'Targets') })
  list(@Query() query: TargetQueryDto): Promise<Page<TargetDto>> {
    return this.targets.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a target (without secret values)' })
  @ApiOkResponse({ type: TargetDto })
  @ApiNotFoundResponse({ description: 'Unknown id.' })
  get(@Param('id', ParseUUIDPipe) id: string): Promise<TargetDto> {
    return this.targets.get(id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Edit a target', description: 'Settings are replaced as a whole section; secrets the section omits are kept.' })
  @ApiOkResponse({ type: TargetDto })
  @ApiNotFoundResponse({ description: 'Unknown id.' })
  update(@Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateTargetDto): Promise<TargetDto> {
    return this.targets.update(id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a target' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiNotFoundResponse({ description: 'Unknown id.' })
  remove(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.targets.remove(id);
  }
}
