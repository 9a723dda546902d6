import { Controller, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBadRequestResponse, ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/auth.decorators';
import { EVAL_SECURITY_SCHEMES, EvaluationCredentialStrategy } from '../auth/evaluation-auth';
import { TREND_RULE } from './cycle-comparison';
import { ANALYSIS_LIFECYCLE, CampaignAnalysisDto, CycleComparisonDto } from './analysis.dto';
import { AnalysisService } from './analysis.service';

/** Campaign analysis and cycle comparison (evaluation-platform.md, Endpoints: /api/campaigns/{id}/analysis; issue 4). */
@ApiTags('evaluation')
@Controller('api/campaigns')
@Authenticated(EvaluationCredentialStrategy, { securityScheme: EVAL_SECURITY_SCHEMES })
export class AnalysisController {
  constructor(private readonly analysis: AnalysisService) {}

  @Get(':id/analysis')
  @ApiOperation({
    operationId: 'getCampaignAnalysis',
    summary: 'Read a campaign\'s analysis',
    description: `The analysis state (status, phase and progress), the model configuration used (never its key), the per-scenario diagnoses and, once completed, the report; poll it until \`completed\` or \`failed\`. ${ANALYSIS_LIFECYCLE} 404 when the campaign is unknown or was never analysed (the reason says which).`,
  })
  @ApiOkResponse({ type: CampaignAnalysisDto })
  @ApiNotFoundResponse({ description: 'Unknown campaign, or a campaign never analysed.' })
  get(@Param('id', ParseUUIDPipe) id: string): Promise<CampaignAnalysisDto> {
    return this.analysis.get(id);
  }

  @Post(':id/analysis')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'startCampaignAnalysis',
    summary: 'Start or restart a campaign\'s analysis',
    description:
      'Puts the campaign\'s one analysis record into `generating` and queues the analysis job; returns the record (202). The model is the campaign\'s `analysis_model_config_id` when set (it must exist and be an enabled chat configuration), else the configuration marked `is_analysis_default`. ' +
      `${ANALYSIS_LIFECYCLE} 400: the campaign is not finished (\`completed\` or \`cancelled\`), or no analysis model can be resolved (the reason says why). 409: the analysis is already generating (a start never interrupts a running analysis; start again once it ended).`,
  })
  @ApiAcceptedResponse({ type: CampaignAnalysisDto })
  @ApiBadRequestResponse({ description: 'Campaign not finished, or no analysis model resolvable; the detail gives the reason.' })
  @ApiNotFoundResponse({ description: 'Unknown campaign.' })
  @ApiConflictResponse({ description: 'The analysis is already generating.' })
  start(@Param('id', ParseUUIDPipe) id: string): Promise<CampaignAnalysisDto> {
    return this.analysis.start(id);
  }

  @Get(':id/cycle-comparison')
  @ApiOperation({
    operationId: 'getCampaignCycleComparison',
    summary: 'Read a campaign\'s cycle comparison',
    description:
      'Created automatically when a production-line campaign\'s analysis completes, against the most recent campaign created before it with the same plan fingerprint and a completed analysis; without one it is stored with status `no_baseline`. ' +
      'Holds metric deltas (overall and per scenario: pass rate, passed and total cases, latency p50/p95, each as current, baseline, delta; a missing case is not a passing case), problem evolution (resolved, persisting, new; matched by problem id, else by normalised title), recommendation tracking (whether each baseline recommendation was followed by an improvement: a problem it addressed was resolved or a scenario of those problems improved its pass rate), ' +
      `the trend indicator (${TREND_RULE}) and an LLM narration (null with \`narration_error\` when the model call failed). A new analysis of the campaign replaces it. 404 when the campaign is unknown or has none yet (accelerated line, not analysed, analysis generating or failed; the reason says which).`,
  })
  @ApiOkResponse({ type: CycleComparisonDto })
  @ApiNotFoundResponse({ description: 'Unknown campaign, or no cycle comparison yet (with the reason).' })
  cycleComparison(@Param('id', ParseUUIDPipe) id: string): Promise<CycleComparisonDto> {
    return this.analysis.cycleComparison(id);
  }
}
