import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JobsService } from '../../jobs/jobs.service';
import { ModelConfigEntity } from '../model-configs/model-config.entity';
import { RUN_EVALUATION } from '../runs/run-jobs';
import { LIVE_RUN_STATUSES, RunStatus } from '../runs/run.entity';
import { RunsService } from '../runs/runs.service';
import { ScenarioEntity } from '../scenarios/scenario.entity';
import { TargetEntity } from '../targets/target.entity';
import { TargetsService } from '../targets/targets.service';
import { CampaignEntity, CampaignPlanEntry } from './campaign.entity';
import { CampaignResultsQuery } from './campaign-results';
import { assertWindow, campaignMoveRefusal, normaliseBudgetOverride, normaliseSeeds } from './campaign-rules';
import { settleCampaign } from './campaign-settlement';
import { CAMPAIGN_SORT_FIELDS, CampaignDto, CampaignQueryDto, CampaignReportDto, CreateCampaignDto, RunCounts, StartCampaignDto, toCampaignDto } from './campaigns.dto';
import { planFingerprint } from './plan-fingerprint';
import { ListPager } from '../../common/paging/list-pager';

/** Attempts of a cancel that raced with a start (one retry is always enough: running never goes back to draft). */
const CANCEL_ATTEMPTS = 3;

/**
 * Campaigns (evaluation-platform.md, Resources: Campaign; issue 4, Campaigns): creation with a pinned,
 * fingerprinted plan; listing; start (one run per plan entry, in one transaction); cancel; completion when every
 * run is terminal ({@link settleCampaign}); the report.
 */
@Injectable()
export class CampaignsService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly targets: TargetsService,
    private readonly runs: RunsService,
    private readonly jobs: JobsService,
    private readonly results: CampaignResultsQuery,
  ) {}

  /**
   * Creates a `draft` campaign. The plan pins each scenario's current version and name; the fingerprint covers
   * scenario ids and versions. Empty seed lists become null (opted out, rule 3).
   * @throws BadRequestException (400) window end not after start, too many plan entries or seeds, one seed list
   *   without the other, unknown analysis model configuration
   * @throws NotFoundException (404) unknown target or scenario
   */
  async create(input: CreateCampaignDto): Promise<CampaignDto> {
    const { maxPlanEntries, maxSeeds } = this.config.evaluation.campaigns;
    const windowStart = new Date(input.window_start);
    const windowEnd = new Date(input.window_end);
    assertWindow(windowStart, windowEnd);
    if (input.plan.length > maxPlanEntries) {
      throw new BadRequestException(`The plan has ${input.plan.length} entries; at most ${maxPlanEntries} are allowed (EVAL_CAMPAIGN_MAX_PLAN_ENTRIES).`);
    }
    const seeds = normaliseSeeds(input.seed_personas, input.seed_goals, maxSeeds);
    const budgetOverride = normaliseBudgetOverride(
      input.budget_override && {
        sessionsPerWindow: input.budget_override.sessions_per_window,
        turnsPerSession: input.budget_override.turns_per_session,
        minSessionIntervalMs: input.budget_override.min_session_interval_ms,
      },
    );
    if (input.analysis_model_config_id && !(await this.dataSource.getRepository(ModelConfigEntity).existsBy({ id: input.analysis_model_config_id }))) {
      throw new BadRequestException(
        `The analysis model configuration ${input.analysis_model_config_id} does not exist. Create it with POST /api/model-configs, or leave analysis_model_config_id out to use the analysis default.`,
      );
    }
    const target = await this.targets.find(input.target_id);
    const scenarioIds = [...new Set(input.plan.map((entry) => entry.scenario_id))];
    const scenarios = await this.dataSource.getRepository(ScenarioEntity).find({ where: { id: In(scenarioIds) }, select: { id: true, name: true, version: true } });
    const byId = new Map(scenarios.map((scenario) => [scenario.id, scenario]));
    const missing = scenarioIds.filter((id) => !byId.has(id));
    if (missing.length) throw new NotFoundException(`No scenario ${missing.join(', ')}: every plan entry must name an existing scenario.`);
    const plan: CampaignPlanEntry[] = input.plan.map((entry) => {
      const scenario = byId.get(entry.scenario_id)!;
      return { scenarioId: scenario.id, scenarioVersion: scenario.version, scenarioName: scenario.name, repeatCount: entry.repeat_count ?? 1, concurrency: entry.concurrency ?? 4 };
    });
    const row = await this.dataSource.getRepository(CampaignEntity).save(
      this.dataSource.getRepository(CampaignEntity).create({
        name: input.name,
        description: input.description ?? null,
        targetId: target.id,
        targetName: target.name,
        line: input.line,
        status: 'draft',
        windowStart,
        windowEnd,
        plan,
        planFingerprint: planFingerprint(plan),
        seedPersonas: seeds.seedPersonas,
        seedGoals: seeds.seedGoals,
        budgetOverride,
        analysisModelConfigId: input.analysis_model_config_id ?? null,
        startedAt: null,
        finishedAt: null,
      }),
    );
    return toCampaignDto(row, this.config.evaluation.explorationBudget);
  }

  /**
   * Newest first (sortable by `createdAt`, `windowStart`, `name`); filters: status, line, target, `active_at`
   * (window_start ≤ t < window_end), `window_from` / `window_to` (window overlaps [from, to)).
   * @throws BadRequestException (400) window_to not after window_from; unknown sort field
   */
  async list(query: CampaignQueryDto): Promise<Page<CampaignDto>> {
    const order = toOrder(query.sort, CAMPAIGN_SORT_FIELDS, { 'campaign.createdAt': 'DESC' });
    const from = query.window_from ? new Date(query.window_from) : undefined;
    const to = query.window_to ? new Date(query.window_to) : undefined;
    if (from && to && !(to.getTime() > from.getTime())) {
      throw new BadRequestException(`window_to (${to.toISOString()}) must be after window_from (${from.toISOString()}).`);
    }
    const builder = this.dataSource.getRepository(CampaignEntity).createQueryBuilder('campaign');
    if (query.status) builder.andWhere('campaign.status = :status', { status: query.status });
    if (query.line) builder.andWhere('campaign.line = :line', { line: query.line });
    if (query.target_id) builder.andWhere('campaign.targetId = :targetId', { targetId: query.target_id });
    if (query.active_at) builder.andWhere('campaign.windowStart <= :activeAt AND campaign.windowEnd > :activeAt', { activeAt: new Date(query.active_at) });
    if (from) builder.andWhere('campaign.windowEnd > :from', { from });
    if (to) builder.andWhere('campaign.windowStart < :to', { to });
    for (const [field, direction] of Object.entries(order)) builder.addOrderBy(field, direction);
    const { rows, ...slice } = await this.pager.page(builder, query);
    const counts = await this.runCounts(rows.map((row) => row.id));
    return toPage(rows.map((row) => toCampaignDto(row, this.config.evaluation.explorationBudget, counts.get(row.id))), slice, query);
  }

  /** The campaign as returned. @throws NotFoundException (404) */
  async get(id: string, manager?: EntityManager): Promise<CampaignDto> {
    const row = await this.find(id, manager);
    const counts = await this.runCounts([id], manager);
    return toCampaignDto(row, this.config.evaluation.explorationBudget, counts.get(id));
  }

  /** The stored campaign (for the analysis, exploration and patrol services). @throws NotFoundException (404) */
  async find(id: string, manager?: EntityManager): Promise<CampaignEntity> {
    const row = await (manager ?? this.dataSource.manager).findOneBy(CampaignEntity, { id });
    if (!row) throw new NotFoundException(`No campaign ${id}.`);
    return row;
  }

  /**
   * Starts a draft campaign: draft → running, and one `queued` run per plan entry (campaign_id set, the entry's
   * repeat count and concurrency), created through RunsService.create, all in one transaction. The plan's
   * scenarios are locked (FOR SHARE) while their versions are checked, so no edit slips in between the check and
   * the runs' snapshots: the runs use exactly the planned versions and the fingerprint stays true.
   * @throws NotFoundException (404) unknown campaign
   * @throws ConflictException (409) the campaign is not a draft (the reason names the allowed moves); a plan
   *   scenario was deleted or is at another version than planned; the target was deleted
   * @throws BadRequestException (400) the target's kind cannot be called
   */
  async start(id: string, input: StartCampaignDto = {}): Promise<CampaignDto> {
    await this.dataSource.transaction(async (manager) => {
      const campaign = await manager.findOne(CampaignEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!campaign) throw new NotFoundException(`No campaign ${id}.`);
      const refusal = campaignMoveRefusal(campaign.status, 'start');
      if (refusal) throw new ConflictException(refusal);
      const ids = [...new Set(campaign.plan.map((entry) => entry.scenarioId))].sort();
      const current = await manager
        .createQueryBuilder(ScenarioEntity, 'scenario')
        .select(['scenario.id', 'scenario.version'])
        .where('scenario.id IN (:...ids)', { ids })
        .orderBy('scenario.id')
        .setLock('pessimistic_read')
        .getMany();
      const versions = new Map(current.map((scenario) => [scenario.id, scenario.version]));
      const problems = [...new Map(campaign.plan.map((entry) => [entry.scenarioId, entry])).values()].flatMap((entry) => {
        const version = versions.get(entry.scenarioId);
        if (version === undefined) return [`scenario "${entry.scenarioName}" (${entry.scenarioId}) planned at v${entry.scenarioVersion} was deleted`];
        if (version !== entry.scenarioVersion) return [`scenario "${entry.scenarioName}" (${entry.scenarioId}) is now v${version}, the plan pins v${entry.scenarioVersion}`];
        return [];
      });
      if (problems.length) {
        throw new ConflictException(
          `The campaign cannot start: its plan no longer matches the scenarios (${problems.join('; ')}). Running it would break its plan fingerprint; create a new campaign from the current scenarios.`,
        );
      }
      if (!(await manager.existsBy(TargetEntity, { id: campaign.targetId }))) {
        throw new ConflictException(`The campaign cannot start: its target "${campaign.targetName}" (${campaign.targetId}) was deleted.`);
      }
      for (const entry of campaign.plan) {
        await this.runs.create(
          { scenario_id: entry.scenarioId, target_id: campaign.targetId, repeat_count: entry.repeatCount, concurrency: entry.concurrency },
          { manager, campaignId: campaign.id, triggeredBy: input.triggered_by ?? 'manual' },
        );
      }
      await manager.update(CampaignEntity, { id }, { status: 'running', startedAt: new Date() });
    });
    this.jobs.notify(RUN_EVALUATION);
    return this.get(id);
  }

  /**
   * Cancels a draft or running campaign: → cancelled (finished_at set) and every queued or running run of it →
   * cancelled, in one transaction. The runs are cancelled before the campaign row is locked, so this never waits
   * for a run row while holding the campaign row (a run ending holds its run row, then waits for the campaign
   * row: the other order could deadlock). A start that commits in between is noticed and the cancel retried.
   * @throws NotFoundException (404); ConflictException (409) the campaign is completed or cancelled
   */
  async cancel(id: string): Promise<CampaignDto> {
    for (let attempt = 1; ; attempt++) {
      const done = await this.dataSource.transaction(async (manager) => {
        const before = await this.find(id, manager);
        const refusal = campaignMoveRefusal(before.status, 'cancel');
        if (refusal) throw new ConflictException(refusal);
        await manager.query(`UPDATE eval_run SET status = 'cancelled', finished_at = now() WHERE campaign_id = $1 AND status = ANY($2::varchar[])`, [id, LIVE_RUN_STATUSES]);
        const locked = await manager.findOne(CampaignEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
        const lockedRefusal = locked ? campaignMoveRefusal(locked.status, 'cancel') : undefined;
        if (lockedRefusal) throw new ConflictException(lockedRefusal);
        if (before.status !== locked!.status) {
          if (attempt < CANCEL_ATTEMPTS) return false; // started meanwhile: its runs were not visible to the update above
          throw new ConflictException('The campaign changed state while it was being cancelled; try again.');
        }
        await manager.update(CampaignEntity, { id }, { status: 'cancelled', finishedAt: new Date() });
        return true;
      });
      if (done) return this.get(id);
    }
  }

  /**
   * The campaign and the aggregation of its terminal runs (the same the patrol uses).
   * @throws NotFoundException (404)
   */
  async report(id: string): Promise<CampaignReportDto> {
    const campaign = await this.get(id);
    return { campaign, results: await this.results.aggregate(id) };
  }

  /** See {@link settleCampaign}: completes the running campaign inside the caller's transaction once no run of it is live. */
  settleCampaign(manager: EntityManager, campaignId: string): Promise<boolean> {
    return settleCampaign(manager, campaignId);
  }

  /** Runs per campaign and status, for `run_counts`. */
  private async runCounts(campaignIds: string[], manager?: EntityManager): Promise<Map<string, RunCounts>> {
    const counts = new Map<string, RunCounts>();
    if (campaignIds.length === 0) return counts;
    const rows: { campaign_id: string; status: RunStatus; count: string }[] = await (manager ?? this.dataSource.manager).query(
      'SELECT campaign_id, status, count(*) AS count FROM eval_run WHERE campaign_id = ANY($1::uuid[]) GROUP BY campaign_id, status',
      [campaignIds],
    );
    for (const row of rows) counts.set(row.campaign_id, { ...counts.get(row.campaign_id), [row.status]: Number(row.count) });
    return counts;
  }
}
