import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { OutboundHttp } from '../../common/outbound/outbound.service';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JobHandler } from '../../jobs/job-handler.decorator';
import { ChatModel, createChatModel } from '../../llm/chat-model';
import type { CampaignResults } from '../campaigns/campaign-results';
import { CampaignResultsQuery } from '../campaigns/campaign-results';
import { CampaignEntity } from '../campaigns/campaign.entity';
import { ModelConfigEntity } from '../model-configs/model-config.entity';
import type { TranscriptTurn } from '../runs/case-result.entity';
import { ANALYSE_CAMPAIGN } from './analysis-jobs';
import { snapshotModelConfig } from './analysis-model';
import { diagnosisMessages, FailureSample, narrationMessages, PromptCampaign, synthesisMessages, truncateText } from './analysis-prompts';
import { AnalysisReport, checkDiagnosisAnswer, checkReportAnswer } from './analysis-report.schema';
import { AnalysisInterruptedError, askModel, AskOptions, ModelAnswerError } from './ask-model';
import { CampaignAnalysisEntity } from './campaign-analysis.entity';
import { compareCycles } from './cycle-comparison';
import { CycleComparisonEntity } from './cycle-comparison.entity';
import { removeForeignReferences } from './report-references';

/** Longest narration stored, characters. */
const NARRATION_MAX_CHARS = 8000;

/** A reason to end the analysis `failed` (stored as its `error`). */
class AnalysisFailure extends Error {}

/** This worker run no longer holds the record (restarted, taken over, or ended elsewhere): stop without writing. */
class LostClaimError extends Error {
  constructor() {
    super('The analysis record is held by another worker run or was restarted.');
  }
}

/** Which record a worker run may write: the campaign's, of this generation, claimed by this run, still generating. */
interface Fence {
  campaignId: string;
  generation: number;
  workerId: string;
}

/** The earlier campaign a comparison is made against, with its analysis. */
interface Baseline {
  campaign: PromptCampaign;
  results: CampaignResults | null;
  report: AnalysisReport;
}

/**
 * Runs campaign analyses (issue 4, Campaign analysis and Cycle comparison): phase 1 diagnoses each plan scenario
 * from its results and a capped sample of its failures, phase 2 synthesises the structured report (schema-valid,
 * foreign references removed); for a production-line campaign the cycle comparison is made in the same job and
 * stored in the same transaction that completes the analysis.
 *
 * Crash safety (issue 4, acceptance 6): a worker run first claims the record (`workerId`, `attempts` + 1) and only
 * writes while it still holds the claim; it refreshes `heartbeatAt` every EVAL_ANALYSIS_HEARTBEAT_MS. Diagnoses are
 * stored one by one, so a resumed job skips what is done. On shutdown the model wait is abandoned, the claim
 * released and the job thrown back to the queue (pg-boss retries it, on this or another instance). Records whose
 * worker died or whose job the queue gave up are found by `AnalysisSweeper`.
 */
@Injectable()
export class AnalysisExecutor implements OnModuleDestroy {
  private readonly logger = new Logger(AnalysisExecutor.name);
  private readonly stopping = new AbortController();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly results: CampaignResultsQuery,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    /** Analysis calls go through the evaluation models' outbound client (EVAL_MODEL_*; issue 19 item 1). */
    private readonly outboundHttp: OutboundHttp,
  ) {}

  /** Interrupts model waits so running analyses go back to the queue at once instead of holding up shutdown. */
  onModuleDestroy(): void {
    this.stopping.abort();
  }

  /**
   * The job: analyses the campaign for the start request `generation`. Does nothing when the record is of another
   * generation, no longer generating, or held by a live worker run.
   * @throws AnalysisInterruptedError on shutdown, and unexpected errors (database), so the queue retries the job
   */
  @JobHandler(ANALYSE_CAMPAIGN, { concurrency: 2, retryLimit: 3, retryDelaySeconds: 1, expireInSeconds: 6 * 3600 })
  async analyse({ campaignId, generation }: { campaignId: string; generation: number }): Promise<void> {
    const fence: Fence = { campaignId, generation, workerId: randomUUID() };
    const record = await this.claim(fence);
    if (!record) return;
    const { maxRuns, heartbeatMs } = this.config.evaluation.analysis;
    if (record.attempts > maxRuns) {
      await this.fail(fence, `The analysis was interrupted ${record.attempts - 1} time${record.attempts - 1 === 1 ? '' : 's'} (app restarts, lost workers or errors) and was given up after EVAL_ANALYSIS_MAX_RUNS=${maxRuns} worker run${maxRuns === 1 ? '' : 's'}.${record.error ? ` Last: ${record.error}` : ''}`);
      return;
    }
    const heartbeat = setInterval(() => {
      this.write(this.dataSource.manager, fence, {}).catch(() => undefined);
    }, heartbeatMs);
    heartbeat.unref();
    try {
      await this.work(record, fence);
    } catch (error) {
      if (error instanceof LostClaimError) return;
      if (error instanceof AnalysisFailure || error instanceof ModelAnswerError) {
        this.logger.warn(`Analysis of campaign ${campaignId} failed: ${error.message}`);
        await this.fail(fence, error.message);
        return;
      }
      const reason = error instanceof AnalysisInterruptedError ? error.message : `Worker run ${record.attempts} stopped on an unexpected error: ${(error as Error).message}`;
      await this.release(fence, reason).catch(() => undefined);
      throw error;
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Both phases and the comparison. */
  private async work(record: CampaignAnalysisEntity, fence: Fence): Promise<void> {
    const settings = this.config.evaluation.analysis;
    const campaign = await this.dataSource.getRepository(CampaignEntity).findOneBy({ id: fence.campaignId });
    if (!campaign) throw new AnalysisFailure('The campaign was deleted during its analysis.');
    const config = await this.dataSource.getRepository(ModelConfigEntity).findOneBy({ id: record.modelConfig.id });
    if (!config) throw new AnalysisFailure(`The model configuration "${record.modelConfig.name}" (${record.modelConfig.id}) was deleted before the analysis finished.`);
    if (!config.enabled || config.type !== 'chat') {
      throw new AnalysisFailure(`The model configuration "${config.name}" (${config.id}) is no longer an enabled chat configuration.`);
    }
    const model = createChatModel({ baseUrl: config.baseUrl, model: config.model, apiKey: config.apiKey }, this.outboundHttp.client(this.config.evaluationOutbound.model));
    const ask = (what: string, json = true): AskOptions => ({
      what,
      json,
      maxAttempts: settings.maxAttempts,
      timeoutMs: settings.modelTimeoutMs,
      retryDelayMs: settings.retryDelayMs,
      temperature: 0,
      signal: this.stopping.signal,
      onCall: () => this.write(this.dataSource.manager, fence, { modelCalls: () => 'model_calls + 1' }),
    });
    const results = record.results ?? (await this.results.aggregate(fence.campaignId));
    const prompt: PromptCampaign = { id: campaign.id, name: campaign.name, line: campaign.line, target_name: campaign.targetName };

    // Phase 1: one diagnosis per plan scenario, stored as it comes (a resumed job skips these).
    await this.write(this.dataSource.manager, fence, { results, scenariosTotal: results.scenarios.length, modelConfig: snapshotModelConfig(config), phase: 'diagnosis' });
    const diagnoses = [...record.diagnoses];
    for (const scenario of results.scenarios) {
      if (diagnoses.some((item) => item.scenario_id === scenario.scenario_id)) continue;
      const { failures, total } = await this.failureSample(results.run_ids, scenario.scenario_id);
      const answer = await askModel(model, diagnosisMessages({ campaign: prompt, scenario, failures, totalFailures: total }), checkDiagnosisAnswer, ask(`The diagnosis of scenario "${scenario.scenario_name}"`));
      diagnoses.push({ scenario_id: scenario.scenario_id, scenario_name: scenario.scenario_name, ...answer.value, sampled_failures: failures.length, total_failures: total, attempts: answer.attempts });
      await this.write(this.dataSource.manager, fence, { diagnoses });
    }

    // Phase 2: the report. The baseline's problems are shown so the same problems keep their ids.
    await this.write(this.dataSource.manager, fence, { phase: 'synthesis' });
    const baseline = await this.baseline(campaign);
    const runsByScenario = await this.runIdsByScenario(results.run_ids);
    const synthesis = await askModel(
      model,
      synthesisMessages({
        campaign: prompt,
        overall: results,
        scenarios: results.scenarios.map((scenario) => ({ ...scenario, run_ids: runsByScenario.get(scenario.scenario_id) ?? [] })),
        diagnoses,
        earlierProblems: (baseline?.report.problems ?? []).map(({ id, title, severity }) => ({ id, title, severity })),
      }),
      checkReportAnswer,
      ask('The synthesis of the report'),
    );
    const { report, removed } = removeForeignReferences(synthesis.value, {
      runIds: results.run_ids,
      scenarioIds: results.scenarios.map((scenario) => scenario.scenario_id),
      caseIds: await this.caseIds(results.run_ids),
    });

    // Cycle comparison (production line only), then everything stored at once.
    let comparison: Partial<CycleComparisonEntity> | null = null;
    if (campaign.line === 'production') {
      await this.write(this.dataSource.manager, fence, { phase: 'comparison' });
      comparison = await this.compare(model, ask('The narration', false), prompt, { results, report }, baseline, fence.generation);
    }
    await this.dataSource.transaction(async (manager) => {
      await this.write(manager, fence, { status: 'completed', phase: 'done', report, removedReferences: removed, error: null, workerId: null, finishedAt: new Date() });
      if (comparison) {
        await manager.delete(CycleComparisonEntity, { campaignId: fence.campaignId });
        await manager.insert(CycleComparisonEntity, comparison);
      }
    });
    this.logger.log(`Analysis of campaign ${fence.campaignId} completed (${removed.length} foreign references removed)`);
  }

  /** The comparison row: against the baseline, or `no_baseline`. The narration is one model call; its failure is stored, not fatal. */
  private async compare(
    model: ChatModel,
    options: AskOptions,
    campaign: PromptCampaign,
    current: { results: CampaignResults; report: AnalysisReport },
    baseline: Baseline | null,
    generation: number,
  ): Promise<Partial<CycleComparisonEntity>> {
    const row: Partial<CycleComparisonEntity> = { campaignId: campaign.id, analysisGeneration: generation, createdAt: new Date() };
    if (!baseline) return { ...row, status: 'no_baseline', baselineCampaignId: null };
    const baselineResults = baseline.results ?? (await this.results.aggregate(baseline.campaign.id));
    const mechanical = compareCycles(current, { results: baselineResults, report: baseline.report });
    let narration: string | null = null;
    let narrationError: string | null = null;
    try {
      const answer = await askModel(
        model,
        narrationMessages({ campaign, baseline: baseline.campaign, comparison: mechanical }),
        (text) => (text.trim() ? { ok: true, value: text.trim() } : { ok: false, errors: ['the answer is empty'] }),
        { ...options, maxAttempts: 1 },
      );
      narration = truncateText(answer.value, NARRATION_MAX_CHARS);
    } catch (error) {
      if (!(error instanceof ModelAnswerError)) throw error;
      narrationError = error.message;
    }
    return {
      ...row,
      status: 'completed',
      baselineCampaignId: baseline.campaign.id,
      metrics: mechanical.metrics,
      problemEvolution: mechanical.problem_evolution,
      recommendationTracking: mechanical.recommendation_tracking,
      trend: mechanical.trend,
      trendReason: mechanical.trend_reason,
      narration,
      narrationError,
    };
  }

  /**
   * The most recent campaign created before this one (by created_at, then id) with the same plan fingerprint and a
   * completed analysis; null when none.
   */
  private async baseline(campaign: CampaignEntity): Promise<Baseline | null> {
    const rows: { id: string; name: string; line: string; target_name: string; results: CampaignResults | null; report: AnalysisReport }[] = await this.dataSource.query(
      `SELECT c.id, c.name, c.line, c.target_name, a.results, a.report
         FROM eval_campaign c
         JOIN eval_campaign_analysis a ON a.campaign_id = c.id
        WHERE c.plan_fingerprint = $1 AND c.id <> $2 AND a.status = 'completed' AND a.report IS NOT NULL
          AND (c.created_at, c.id) < (SELECT created_at, id FROM eval_campaign WHERE id = $2)
        ORDER BY c.created_at DESC, c.id DESC
        LIMIT 1`,
      [campaign.planFingerprint, campaign.id],
    );
    if (rows.length === 0) return null;
    const [row] = rows;
    return { campaign: { id: row.id, name: row.name, line: row.line, target_name: row.target_name }, results: row.results, report: row.report };
  }

  /**
   * Up to EVAL_ANALYSIS_FAILURE_SAMPLE_CAP failed or errored case results of one scenario (one per distinct case, the
   * first run and repetition, in case order), with the reasons of their failed rules; texts cut to
   * EVAL_ANALYSIS_SAMPLE_TEXT_MAX_CHARS. `total` counts every failed or errored result of the scenario.
   */
  private async failureSample(runIds: string[], scenarioId: string): Promise<{ failures: FailureSample[]; total: number }> {
    const { failureSampleCap: cap, sampleTextMaxChars: maxChars } = this.config.evaluation.analysis;
    if (runIds.length === 0) return { failures: [], total: 0 };
    const where = `cr.run_id = ANY($1::uuid[]) AND r.scenario_id = $2 AND cr.status IN ('failed', 'errored')`;
    const [{ count }] = await this.dataSource.query(`SELECT count(*)::int AS count FROM eval_case_result cr JOIN eval_run r ON r.id = cr.run_id WHERE ${where}`, [runIds, scenarioId]);
    if (cap === 0 || count === 0) return { failures: [], total: Number(count) };
    const rows: { id: string; run_id: string; case_id: string; repeat_index: number; status: 'failed' | 'errored'; output: string | null; error: string | null; transcript: TranscriptTurn[] }[] =
      await this.dataSource.query(
        `SELECT * FROM (
           SELECT DISTINCT ON (cr.case_id) cr.id, cr.run_id, cr.case_id, cr.repeat_index, cr.position, cr.status, cr.output, cr.error, cr.transcript
             FROM eval_case_result cr JOIN eval_run r ON r.id = cr.run_id
            WHERE ${where}
            ORDER BY cr.case_id, r.created_at, r.id, cr.repeat_index
         ) sample
         ORDER BY sample.position, sample.case_id
         LIMIT $3`,
        [runIds, scenarioId, cap],
      );
    const rules: { case_result_id: string; type: string; reason: string }[] = rows.length
      ? await this.dataSource.query(
          `SELECT case_result_id, type, reason FROM eval_rule_result WHERE case_result_id = ANY($1::bigint[]) AND NOT pass ORDER BY case_result_id, rule_index`,
          [rows.map((row) => row.id)],
        )
      : [];
    const failures = rows.map((row) => ({
      run_id: row.run_id,
      case_id: row.case_id,
      repeat_index: row.repeat_index,
      status: row.status,
      input: truncateText(row.transcript.length ? row.transcript.map((turn) => turn.message).join('\n\n') : null, maxChars),
      output: truncateText(row.output, maxChars),
      failed_rules: rules.filter((rule) => String(rule.case_result_id) === String(row.id)).map((rule) => ({ type: rule.type, reason: truncateText(rule.reason, maxChars) ?? '' })),
      error: truncateText(row.error, maxChars),
    }));
    return { failures, total: Number(count) };
  }

  /** Run ids by scenario id (lower case). */
  private async runIdsByScenario(runIds: string[]): Promise<Map<string, string[]>> {
    const rows: { id: string; scenario_id: string | null }[] = runIds.length
      ? await this.dataSource.query(`SELECT id, scenario_id FROM eval_run WHERE id = ANY($1::uuid[]) ORDER BY created_at, id`, [runIds])
      : [];
    const byScenario = new Map<string, string[]>();
    for (const row of rows) if (row.scenario_id) byScenario.set(row.scenario_id, [...(byScenario.get(row.scenario_id) ?? []), row.id]);
    return byScenario;
  }

  /** Case ids that have results in the runs. */
  private async caseIds(runIds: string[]): Promise<string[]> {
    if (runIds.length === 0) return [];
    const rows: { case_id: string }[] = await this.dataSource.query(`SELECT DISTINCT case_id FROM eval_case_result WHERE run_id = ANY($1::uuid[])`, [runIds]);
    return rows.map((row) => row.case_id);
  }

  /**
   * Claims the record for this worker run: only a generating record of this generation, not held by a live run
   * (no claim, or a heartbeat older than EVAL_ANALYSIS_STALE_MS). Counts the run in `attempts`.
   * @returns the claimed record, or null when there is nothing to do
   */
  private async claim(fence: Fence): Promise<CampaignAnalysisEntity | null> {
    const [, claimed] = (await this.dataSource.query(
      `UPDATE eval_campaign_analysis
          SET worker_id = $3, attempts = attempts + 1, heartbeat_at = now(), started_at = COALESCE(started_at, now()), updated_at = now()
        WHERE campaign_id = $1 AND generation = $2 AND status = 'generating'
          AND (worker_id IS NULL OR heartbeat_at < now() - $4::int * interval '1 millisecond')`,
      [fence.campaignId, fence.generation, fence.workerId, this.config.evaluation.analysis.staleMs],
    )) as [unknown, number];
    if (!claimed) return null;
    return this.dataSource.getRepository(CampaignAnalysisEntity).findOneBy({ campaignId: fence.campaignId, workerId: fence.workerId });
  }

  /**
   * Writes `changes` (and a heartbeat) if this run still holds the record.
   * @throws LostClaimError when it does not
   */
  private async write(manager: EntityManager, fence: Fence, changes: QueryDeepPartialEntity<CampaignAnalysisEntity>): Promise<void> {
    const result = await manager.update(
      CampaignAnalysisEntity,
      { campaignId: fence.campaignId, generation: fence.generation, workerId: fence.workerId, status: 'generating' },
      { ...changes, heartbeatAt: () => 'now()' },
    );
    if (!result.affected) throw new LostClaimError();
  }

  /** Ends the record `failed` with `reason` (if this run still holds it). */
  private async fail(fence: Fence, reason: string): Promise<void> {
    await this.write(this.dataSource.manager, fence, { status: 'failed', phase: 'done', error: reason, workerId: null, finishedAt: new Date() }).catch((error) => {
      if (!(error instanceof LostClaimError)) throw error;
    });
  }

  /** Gives the record back (still generating) with why this run stopped, so the retried job can claim it at once. */
  private async release(fence: Fence, reason: string): Promise<void> {
    await this.write(this.dataSource.manager, fence, { workerId: null, error: reason });
  }
}
