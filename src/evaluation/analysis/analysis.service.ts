import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { JobsService } from '../../jobs/jobs.service';
import { CampaignEntity, TERMINAL_CAMPAIGN_STATUSES } from '../campaigns/campaign.entity';
import { ModelConfigEntity } from '../model-configs/model-config.entity';
import { ANALYSE_CAMPAIGN } from './analysis-jobs';
import { resolveAnalysisModel, snapshotModelConfig } from './analysis-model';
import { CampaignAnalysisDto, CycleComparisonDto, toCampaignAnalysisDto, toCycleComparisonDto } from './analysis.dto';
import { CampaignAnalysisEntity } from './campaign-analysis.entity';
import { CycleComparisonEntity } from './cycle-comparison.entity';

/**
 * Campaign analysis and cycle comparison, the HTTP side (evaluation-platform.md, Endpoints:
 * /api/campaigns/{id}/analysis; issue 4, Campaign analysis and Cycle comparison). The work is done by
 * `AnalysisExecutor` (the job) and `AnalysisSweeper` (crash safety).
 */
@Injectable()
export class AnalysisService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: JobsService,
  ) {}

  /**
   * Starts or restarts the campaign's analysis: the one record goes to `generating` (a restart bumps its
   * generation and clears the previous diagnoses, report, error and cycle comparison) and the job is enqueued in
   * the same transaction.
   * @throws NotFoundException (404) unknown campaign
   * @throws BadRequestException (400) the campaign is not terminal; no resolvable analysis model (with why)
   * @throws ConflictException (409) the analysis is already generating
   */
  async start(campaignId: string): Promise<CampaignAnalysisDto> {
    const campaign = await this.campaign(campaignId);
    if (!TERMINAL_CAMPAIGN_STATUSES.includes(campaign.status)) {
      throw new BadRequestException(
        `Campaign ${campaignId} is ${campaign.status}; only a finished campaign (${TERMINAL_CAMPAIGN_STATUSES.join(' or ')}) can be analysed.`,
      );
    }
    const configs = this.dataSource.getRepository(ModelConfigEntity);
    const referenced = campaign.analysisModelConfigId ? await configs.findOneBy({ id: campaign.analysisModelConfigId }) : null;
    const analysisDefault = campaign.analysisModelConfigId ? null : await configs.findOneBy({ isAnalysisDefault: true });
    const resolved = resolveAnalysisModel(campaign.analysisModelConfigId, referenced, analysisDefault);
    if ('refusal' in resolved) throw new BadRequestException(resolved.refusal);

    await this.dataSource.transaction(async (manager) => {
      // One statement creates the record or restarts it, unless it is generating: concurrent starts cannot both win.
      const rows: { generation: number }[] = await manager.query(
        `INSERT INTO eval_campaign_analysis (campaign_id, status, phase, generation, model_config, diagnoses, attempts, model_calls, heartbeat_at, requested_at)
         VALUES ($1, 'generating', 'queued', 1, $2::jsonb, '[]'::jsonb, 0, 0, now(), now())
         ON CONFLICT (campaign_id) DO UPDATE SET
           status = 'generating', phase = 'queued', generation = eval_campaign_analysis.generation + 1, model_config = EXCLUDED.model_config,
           scenarios_total = NULL, diagnoses = '[]'::jsonb, results = NULL, report = NULL, removed_references = NULL, error = NULL,
           attempts = 0, model_calls = 0, worker_id = NULL, heartbeat_at = now(), requested_at = now(), started_at = NULL, finished_at = NULL, updated_at = now()
         WHERE eval_campaign_analysis.status <> 'generating'
         RETURNING generation`,
        [campaignId, JSON.stringify(snapshotModelConfig(resolved.config))],
      );
      if (rows.length === 0) {
        throw new ConflictException(`The analysis of campaign ${campaignId} is already generating; wait until it is completed or failed, then start it again.`);
      }
      await manager.delete(CycleComparisonEntity, { campaignId });
      await this.jobs.enqueue(ANALYSE_CAMPAIGN, { campaignId, generation: Number(rows[0].generation) }, { manager });
    });
    this.jobs.notify(ANALYSE_CAMPAIGN);
    return this.get(campaignId);
  }

  /**
   * The campaign's analysis record.
   * @throws NotFoundException (404) unknown campaign, or a campaign never analysed (the reason says which)
   */
  async get(campaignId: string): Promise<CampaignAnalysisDto> {
    const row = await this.dataSource.getRepository(CampaignAnalysisEntity).findOneBy({ campaignId });
    if (!row) {
      await this.campaign(campaignId);
      throw new NotFoundException(`Campaign ${campaignId} has not been analysed yet; POST /api/campaigns/${campaignId}/analysis starts its analysis.`);
    }
    return toCampaignAnalysisDto(row);
  }

  /**
   * The campaign's cycle comparison.
   * @throws NotFoundException (404) unknown campaign, or none yet, with why (accelerated line, not analysed, analysis generating or failed)
   */
  async cycleComparison(campaignId: string): Promise<CycleComparisonDto> {
    const row = await this.dataSource.getRepository(CycleComparisonEntity).findOneBy({ campaignId });
    if (row) return toCycleComparisonDto(row);
    const campaign = await this.campaign(campaignId);
    if (campaign.line !== 'production') {
      throw new NotFoundException(`Campaign ${campaignId} is on the ${campaign.line} line; cycle comparisons are made for production-line campaigns only.`);
    }
    const analysis = await this.dataSource.getRepository(CampaignAnalysisEntity).findOne({ where: { campaignId }, select: { id: true, status: true } });
    const why = !analysis
      ? 'it has not been analysed yet'
      : analysis.status === 'generating'
        ? 'its analysis is still generating'
        : analysis.status === 'failed'
          ? 'its analysis failed (restart the analysis)'
          : 'its analysis completed before cycle comparisons existed (restart the analysis)';
    throw new NotFoundException(`No cycle comparison for campaign ${campaignId} yet: ${why}. It is created when the campaign's analysis completes.`);
  }

  /** @throws NotFoundException (404) */
  private async campaign(id: string): Promise<CampaignEntity> {
    const campaign = await this.dataSource.getRepository(CampaignEntity).findOne({
      where: { id },
      select: { id: true, status: true, line: true, analysisModelConfigId: true },
    });
    if (!campaign) throw new NotFoundException(`No campaign ${id}.`);
    return campaign;
  }
}
