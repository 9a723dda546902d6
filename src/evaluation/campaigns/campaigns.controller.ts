import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/auth.decorators';
import { Page, pageSchema } from '../../common/paging/page';
import { EVAL_SECURITY_SCHEMES, EvaluationCredentialStrategy } from '../auth/evaluation-auth';
import { CAMPAIGN_LIFECYCLE, CampaignDto, CampaignQueryDto, CampaignReportDto, CreateCampaignDto, StartCampaignDto } from './campaigns.dto';
import { CampaignsService } from './campaigns.service';

/** Campaigns (evaluation-platform.md, Endpoints: /api/campaigns; issue 4, Campaigns). */
@ApiTags('evaluation')
@Controller('api/campaigns')
@Authenticated(EvaluationCredentialStrategy, { securityScheme: EVAL_SECURITY_SCHEMES })
export class CampaignsController {
  constructor(private readonly campaigns: CampaignsService) {}

  @Post()
  @ApiOperation({
    operationId: 'createCampaign',
    summary: 'Create a campaign',
    description:
      'Creates a `draft` campaign: one target, a line, a service-cycle window, a static plan (each scenario pinned at its current version; the plan fingerprint is the SHA-256 of the scenario ids with their versions in a canonical order), an optional exploration seed set (personas × goals; empty lists = opted out), an optional budget override and an optional analysis model configuration. ' +
      `${CAMPAIGN_LIFECYCLE} 400: window_end not after window_start, plan empty or longer than EVAL_CAMPAIGN_MAX_PLAN_ENTRIES, one seed list without the other, analysis model configuration that does not exist. 404: unknown target or scenario.`,
  })
  @ApiCreatedResponse({ type: CampaignDto })
  @ApiBadRequestResponse({ description: 'Invalid body, with the reason (e.g. "The analysis model configuration … does not exist").' })
  @ApiNotFoundResponse({ description: 'Unknown target or scenario.' })
  create(@Body() body: CreateCampaignDto): Promise<CampaignDto> {
    return this.campaigns.create(body);
  }

  @Get()
  @ApiOperation({
    operationId: 'listCampaigns',
    summary: 'Query campaigns',
    description: 'Newest first (sort: createdAt, windowStart, name); filter by status, line, target_id, and window: `active_at` (window contains the instant) and/or `window_from`/`window_to` (window overlaps the range). Each campaign carries its run counts.',
  })
  @ApiOkResponse({ type: pageSchema(CampaignDto, 'Campaigns') })
  @ApiBadRequestResponse({ description: 'Invalid filter (e.g. window_to not after window_from).' })
  list(@Query() query: CampaignQueryDto): Promise<Page<CampaignDto>> {
    return this.campaigns.list(query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getCampaign', summary: 'Read a campaign', description: `The campaign with its plan, fingerprint, seed set, effective budget and run counts. ${CAMPAIGN_LIFECYCLE}` })
  @ApiOkResponse({ type: CampaignDto })
  @ApiNotFoundResponse({ description: 'Unknown campaign.' })
  get(@Param('id', ParseUUIDPipe) id: string): Promise<CampaignDto> {
    return this.campaigns.get(id);
  }

  @Post(':id/start')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'startCampaign',
    summary: 'Start a campaign',
    description:
      'draft → running: creates one queued run per plan entry (`campaign_id` set, the entry\'s repeat_count and concurrency) in the same transaction as the status change; durable jobs execute them, and the campaign becomes `completed` when all of its runs are terminal. ' +
      '409 (state conflict, with the reason): the campaign is not a draft (the reason names the moves allowed from its status); a plan scenario was deleted or is no longer at the planned version (the runs would not match the plan fingerprint: create a new campaign); the target was deleted.',
  })
  @ApiOkResponse({ type: CampaignDto })
  @ApiNotFoundResponse({ description: 'Unknown campaign.' })
  @ApiConflictResponse({ description: 'Not a draft, or the plan no longer matches its scenarios, or the target is gone.' })
  start(@Param('id', ParseUUIDPipe) id: string, @Body() body: StartCampaignDto): Promise<CampaignDto> {
    return this.campaigns.start(id, body);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'cancelCampaign',
    summary: 'Cancel a campaign',
    description: 'draft | running → cancelled; its queued and running runs are cancelled too (finished cases keep their results). 409 when the campaign is already completed or cancelled (terminal).',
  })
  @ApiOkResponse({ type: CampaignDto })
  @ApiNotFoundResponse({ description: 'Unknown campaign.' })
  @ApiConflictResponse({ description: 'The campaign is terminal.' })
  cancel(@Param('id', ParseUUIDPipe) id: string): Promise<CampaignDto> {
    return this.campaigns.cancel(id);
  }

  @Get(':id/report')
  @ApiOperation({
    operationId: 'getCampaignReport',
    summary: 'Campaign report',
    description:
      'The campaign and the aggregation of its terminal runs, overall and per plan scenario (runs, pass rate, passed/failed/errored cases, latency p50/p95, failed case ids) — the same aggregation the patrol returns. A case that was never executed (cancelled or failed run) counts as not passed.',
  })
  @ApiOkResponse({ type: CampaignReportDto })
  @ApiNotFoundResponse({ description: 'Unknown campaign.' })
  report(@Param('id', ParseUUIDPipe) id: string): Promise<CampaignReportDto> {
    return this.campaigns.report(id);
  }
}
